//! Host memcpy split over a few persistent threads: one core does not saturate the memory bus,
//! so the host side of large staged transfers (see `transfer`) is copied in parallel.
//!
//! Each device has its own threads (a "lane": the CUDA device ordinal): a program feeding several
//! GPUs at once from several host threads gets them all copying. With one pool for the process,
//! uploads into four H200s at once moved about 24 GB/s in all, what one GPU got alone (ompcl's
//! 2mm over 4 GPUs, 2026-11-28).
//!
//! CUDACL_COPY_THREADS (environment, read once): threads per lane, default half the cores, at
//! most 8.
use crate::base::entry::lock;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

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

type Workers = Vec<Mutex<std::sync::mpsc::Sender<Job>>>;

/// Lanes with threads of their own; higher device ordinals share them (modulo).
const LANES: usize = 16;

/// Threads per lane, the caller's own included (CUDACL_COPY_THREADS).
fn lane_threads() -> usize {
    static N: LazyLock<usize> = LazyLock::new(|| {
        std::env::var("CUDACL_COPY_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).clamp(1, 8))
    });
    *N
}

/// The worker threads of `lane`, started on its first large copy.
fn workers(lane: usize) -> &'static [Mutex<std::sync::mpsc::Sender<Job>>] {
    static W: [OnceLock<Workers>; LANES] = [const { OnceLock::new() }; LANES];
    W[lane % LANES].get_or_init(|| {
        let mut v = Vec::new();
        for _ in 1..lane_threads().max(1) {
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
    })
}

/// memcpy of non-overlapping ranges, in parallel on `lane`'s threads when large (`lane`: the
/// device the copy feeds or drains).
///
/// # Safety
/// `src` must have `len` readable bytes, `dst` `len` writable ones, not overlapping.
pub unsafe fn par_copy(lane: usize, dst: *mut u8, src: *const u8, len: usize) {
    let w = if len >= (1 << 20) { workers(lane) } else { &[] };
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
