//! Host memcpy split over a few persistent threads: one core does not saturate the memory bus,
//! so the host side of large staged transfers (see `transfer`) is copied in parallel.
//!
//! CUDACL_COPY_THREADS (environment, read once): threads for it, default half the cores, at
//! most 8.
use crate::base::entry::lock;
use std::sync::{Arc, LazyLock, Mutex};

struct Done {
    left: Mutex<usize>,
    cv: std::sync::Condvar,
}

struct Job {
    dst: usize,
    src: usize,
    len: usize,
    done: Arc<Done>,
}

fn workers() -> &'static [Mutex<std::sync::mpsc::Sender<Job>>] {
    static W: LazyLock<Vec<Mutex<std::sync::mpsc::Sender<Job>>>> = LazyLock::new(|| {
        let n = std::env::var("CUDACL_COPY_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).clamp(1, 8));
        let mut v = Vec::new();
        for _ in 1..n.max(1) {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let spawned = std::thread::Builder::new().name("cudacl-copy".into()).spawn(move || {
                while let Ok(j) = rx.recv() {
                    // SAFETY: the submitter keeps both ranges alive until `left` reaches zero.
                    unsafe { std::ptr::copy_nonoverlapping(j.src as *const u8, j.dst as *mut u8, j.len) };
                    let mut left = lock(&j.done.left);
                    *left -= 1;
                    j.done.cv.notify_all();
                }
            });
            if spawned.is_ok() {
                v.push(Mutex::new(tx));
            }
        }
        v
    });
    &W
}

/// memcpy of non-overlapping ranges, in parallel when large.
///
/// # Safety
/// `src` must have `len` readable bytes, `dst` `len` writable ones, not overlapping.
pub unsafe fn par_copy(dst: *mut u8, src: *const u8, len: usize) {
    let w = if len >= (1 << 20) { workers() } else { &[] };
    if w.is_empty() {
        // SAFETY: the ranges are valid and disjoint, per this function's contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    let parts = w.len() + 1;
    let part = (len / parts + 4095) & !4095;
    let done = Arc::new(Done { left: Mutex::new(0), cv: std::sync::Condvar::new() });
    let mut off = part;
    for tx in w {
        if off >= len {
            break;
        }
        let l = part.min(len - off);
        *lock(&done.left) += 1;
        let job = Job { dst: dst as usize + off, src: src as usize + off, len: l, done: done.clone() };
        if let Err(e) = lock(tx).send(job) {
            let j = e.0;
            // SAFETY: a part of the caller's ranges (the worker is gone: copy it here).
            unsafe { std::ptr::copy_nonoverlapping(j.src as *const u8, j.dst as *mut u8, j.len) };
            *lock(&done.left) -= 1;
        }
        off += l;
    }
    if off < len {
        // SAFETY: the tail of the caller's ranges (off < len).
        unsafe { std::ptr::copy_nonoverlapping(src.add(off), dst.add(off), len - off) };
    }
    // SAFETY: the head of the caller's ranges; the workers copy other parts.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, part.min(len)) };
    let mut left = lock(&done.left);
    while *left > 0 {
        left = done.cv.wait(left).unwrap_or_else(|e| e.into_inner());
    }
}
