//! Host <-> device transfers: pinned memory goes straight to the copy engine; large pageable
//! transfers go through pinned staging chunks, pipelined (the host copies into chunk i while the
//! engine moves chunk i-1, and `par_copy` spreads the host side over a few threads).
//!
//! Tuning (environment, read once): CUDACL_STAGING_MIN (bytes; smaller pageable transfers go
//! straight to the driver, default 8 MiB), CUDACL_IMAGE_STAGING_MIN (the same for image
//! transfers; default: CUDACL_STAGING_MIN's value),
//! CUDACL_STAGING_CHUNK_MB (default 8) and CUDACL_STAGING_CHUNKS (default 4) per CUDA context,
//! CUDACL_STAGING_AFTER (bytes of large pageable transfers the process makes directly before it
//! pins the chunks itself; default 256 MiB), CUDACL_STAGING_PREPIN=0 (do not pin two chunks when
//! a context is made, see `prepin`).
use super::par_copy::par_copy;
use crate::base::entry::{lock, CLResult};
use crate::cuda;
use crate::cuda::context::PrimaryContext;
use crate::cuda::memory::{self as cm, DevicePtr, PinnedAlloc};
use crate::cuda::stream::Stream;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock, Mutex};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Smallest pageable transfer that goes through staging (CUDACL_STAGING_MIN, bytes).
fn staging_min() -> usize {
    // 8 MiB: below that the one-time cost of pinning the staging chunks (tens of ms, seen as
    // 17 ms for a 3 MB upload in ompcl's matmul on the H100) outweighs the faster copy.
    static V: LazyLock<usize> = LazyLock::new(|| env_usize("CUDACL_STAGING_MIN", 8 << 20));
    *V
}

/// Smallest pageable image transfer (`staged_rows`) that goes through staging:
/// CUDACL_IMAGE_STAGING_MIN, else the buffers' threshold (CUDACL_STAGING_MIN, default 8 MiB).
fn image_staging_min() -> usize {
    // Staged by default, like buffers: on the H100 (driver 580, 2026-11-23, nothing else running)
    // 64 MiB pageable image transfers ran at 30.2 (write) / 33.2 (read) GB/s staged against
    // 6.3 / 10.6 GB/s through the driver's own pageable cuMemcpy3D (NVIDIA's OpenCL: 7.2 / 14.4).
    // An earlier run beside CPU-heavy CTS processes had staging behind (6.1 / 7.7 against 7.2 /
    // 10.0): the host-side copies compete for the cores (conformance/results/2026-11-23-images.md).
    static V: LazyLock<usize> = LazyLock::new(|| env_usize("CUDACL_IMAGE_STAGING_MIN", staging_min()));
    *V
}

/// Bytes of large pageable transfers made before all the staging chunks are pinned, not only the
/// two `prepin` made (CUDACL_STAGING_AFTER). Pinning costs about 0.5 ms a MiB (13 ms for the
/// default 32 MiB on an H200, 2026-11-27), and staging saves about 47 ms a GiB over the driver's
/// own pageable path (15-20 GB/s against 50): a process pays for the rest of the chunks once it has
/// moved a few hundred MiB.
fn staging_after() -> usize {
    static V: LazyLock<usize> = LazyLock::new(|| env_usize("CUDACL_STAGING_AFTER", 256 << 20));
    *V
}

/// Large pageable bytes moved so far (all contexts), for `staging_after`.
static PAGEABLE_MOVED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Chunk size (CUDACL_STAGING_CHUNK_MB) and count (CUDACL_STAGING_CHUNKS).
fn staging_shape() -> (usize, usize) {
    static V: LazyLock<(usize, usize)> = LazyLock::new(|| {
        (
            env_usize("CUDACL_STAGING_CHUNK_MB", 8).clamp(1, 256) << 20,
            env_usize("CUDACL_STAGING_CHUNKS", 4).clamp(2, 16),
        )
    });
    *V
}

/// Whether `prepin` pins two chunks when a context is made (CUDACL_STAGING_PREPIN, default 1).
fn prepin_enabled() -> bool {
    static V: LazyLock<bool> =
        LazyLock::new(|| std::env::var("CUDACL_STAGING_PREPIN").map_or(true, |v| v != "0"));
    *V
}

struct Chunk {
    mem: PinnedAlloc,
    done: cuda::event::Event,
    busy: bool,
}

/// Per CUDA context: a private stream for uploads at creation, the staging chunks, and the
/// bounce buffer of small blocking reads.
pub struct Aux {
    pub stream: Stream,
    staging: Mutex<Vec<Chunk>>,
    /// SMALL_READ bytes of pinned memory, allocated on first use (None until then, or when
    /// pinned memory is not available).
    bounce: Mutex<Option<PinnedAlloc>>,
}

/// The context's upload stream and staging chunks, made on first use and kept with the context
/// (they go when it does).
pub fn aux(ctx: &PrimaryContext) -> CLResult<Arc<Aux>> {
    ctx.attachment(|| {
        ctx.make_current()?;
        Ok(Aux { stream: Stream::new()?, staging: Mutex::new(Vec::new()), bounce: Mutex::new(None) })
    })
}

/// The host copy threads (`par_copy`'s lane) of transfers to and from `ctx`'s device.
fn lane(ctx: &PrimaryContext) -> usize {
    ctx.device.max(0) as usize
}

/// Pins the first two of `ctx`'s staging chunks (and the small-read bounce buffer) now, once per
/// CUDA context, that is once per device and process: its first large pageable transfers then
/// already go through them instead of the driver's own pageable path (a fresh process's first
/// 64 MiB upload ran at 6-7 GB/s that way on an H200, against 25-30 staged; bench/copyback.c).
/// Pinning costs about 0.5 ms a MiB: done here it adds that to the first context's creation
/// (which takes 100 ms or more), where a background thread pinning while the program ran slowed
/// its CPU regions (PolyBench's atax, 5 -> 9 ms). The other chunks come once the process has
/// moved CUDACL_STAGING_AFTER bytes. In a context of several devices (`several`) every chunk is
/// pinned here: their transfers tend to run at once (a program spreading work over the GPUs), and
/// pinning on demand in several CUDA contexts at once is serialised by the driver, which made the
/// first uploads to four H200s in one context take twice a single GPU's time (ompcl's gemm at
/// 8192, 2026-11-28).
pub fn prepin(ctx: &PrimaryContext, several: bool) {
    if !prepin_enabled() {
        return;
    }
    let Ok(aux) = aux(ctx) else { return };
    {
        let mut b = lock(&aux.bounce);
        if b.is_none() {
            *b = PinnedAlloc::new(SMALL_READ).ok();
        }
    }
    let mut pool = lock(&aux.staging);
    let want = if several { staging_shape().1 } else { 2 };
    if pool.len() < want {
        add_chunks(&mut pool, want);
    }
}

/// Adds staging chunks (CUDACL_STAGING_CHUNK_MB each) until the pool has `want`; a pool that
/// cannot get two is left empty.
fn add_chunks(pool: &mut Vec<Chunk>, want: usize) {
    let (size, _) = staging_shape();
    while pool.len() < want {
        match (PinnedAlloc::new(size), cuda::event::Event::new(false)) {
            (Ok(mem), Ok(done)) => pool.push(Chunk { mem, done, busy: false }),
            _ => break,
        }
    }
    if pool.len() < 2 {
        pool.clear();
    }
}

/// The staging chunks for a pageable transfer of `n` bytes: those `prepin` made, all
/// CUDACL_STAGING_CHUNKS of them once the process has moved `staging_after()` bytes that way;
/// false (copy directly) while there are none or when pinned memory is not available.
fn ensure_chunks(pool: &mut Vec<Chunk>, n: usize) -> bool {
    use std::sync::atomic::Ordering;
    let (_, count) = staging_shape();
    if pool.len() < count && PAGEABLE_MOVED.fetch_add(n, Ordering::Relaxed) >= staging_after() {
        add_chunks(pool, count);
    }
    !pool.is_empty()
}

/// The part of a transfer one staging chunk carries: transfers of a few chunks are cut finer so
/// that host copies and DMA still overlap.
fn piece_size(chunk: usize, n: usize) -> usize {
    (n / 4).clamp(1 << 20, chunk.max(1 << 20)).next_multiple_of(64 << 10).min(chunk)
}

/// Host to device on `stream` (whose context, `ctx`, is current).
///
/// # Safety
/// `src` has `n` readable bytes that stay unchanged until the copy on `stream` is done.
pub unsafe fn htod_on(
    stream: &Stream,
    ctx: &PrimaryContext,
    dst: DevicePtr,
    src: *const u8,
    n: usize,
) -> CLResult<()> {
    if n < staging_min() || cm::is_pinned(src.cast(), n) {
        // SAFETY: this function's contract.
        return unsafe { cm::copy_htod(stream, dst, src.cast(), n) }.map_err(Into::into);
    }
    let aux = aux(ctx)?;
    let mut pool = lock(&aux.staging);
    if !ensure_chunks(&mut pool, n) {
        // SAFETY: this function's contract.
        return unsafe { cm::copy_htod(stream, dst, src.cast(), n) }.map_err(Into::into);
    }
    let count = pool.len();
    let piece = piece_size(pool[0].mem.size, n);
    let (mut off, mut k) = (0usize, 0usize);
    while off < n {
        let c = &mut pool[k % count];
        let len = piece.min(n - off);
        if c.busy {
            c.done.synchronize()?;
        }
        // SAFETY: src has n readable bytes; the chunk has at least len bytes and no DMA uses it.
        unsafe { par_copy(lane(ctx), c.mem.host.cast(), src.add(off), len) };
        // SAFETY: the chunk is ours and stays untouched until its `done` event has passed.
        unsafe { cm::copy_htod(stream, dst + off as DevicePtr, c.mem.host, len) }?;
        c.done.record(stream)?;
        c.busy = true;
        off += len;
        k += 1;
    }
    Ok(())
}

/// Blocking reads up to this size go through a pinned bounce buffer (`dtoh_small_sync`).
pub const SMALL_READ: usize = 64 << 10;

/// A device-to-host copy of at most SMALL_READ bytes that returns with the data in `dst` (any
/// host memory), having waited for `stream` (whose context, `ctx`, is current): the copy lands
/// in the context's pinned bounce buffer and is copied on from there. For a blocking read this
/// is quicker than the driver's pageable path (its own staging and wait) followed by a wait
/// for the command.
///
/// # Safety
/// `dst` has `n` writable bytes.
pub unsafe fn dtoh_small_sync(
    stream: &Stream,
    ctx: &PrimaryContext,
    dst: *mut u8,
    src: DevicePtr,
    n: usize,
) -> CLResult<()> {
    let aux = aux(ctx)?;
    let mut bounce = lock(&aux.bounce);
    if bounce.is_none() {
        *bounce = PinnedAlloc::new(SMALL_READ).ok();
    }
    match bounce.as_ref() {
        Some(b) if n <= b.size => {
            // SAFETY: the bounce buffer is ours (locked) and holds n bytes.
            unsafe { cm::copy_dtoh(stream, b.host, src, n) }?;
            // Measured on the H100 (2026-11-23): waiting with cuStreamSynchronize or spinning on
            // an event recorded after the copy cost the same for a 4-byte read (7.62 / 7.61 us).
            stream.synchronize()?;
            // SAFETY: the copy is complete; dst has n writable bytes (contract).
            unsafe { std::ptr::copy_nonoverlapping(b.host as *const u8, dst, n) };
        }
        _ => {
            // SAFETY: this function's contract; the wait below completes the copy.
            unsafe { cm::copy_dtoh(stream, dst.cast(), src, n) }?;
            stream.synchronize()?;
        }
    }
    Ok(())
}

/// Device to host on `stream`. Staged reads return once the data is in `dst`.
///
/// # Safety
/// `dst` has `n` writable bytes that nothing else touches until the copy on `stream` is done.
pub unsafe fn dtoh_on(
    stream: &Stream,
    ctx: &PrimaryContext,
    dst: *mut u8,
    src: DevicePtr,
    n: usize,
) -> CLResult<()> {
    if n < staging_min() || cm::is_pinned(dst as *const c_void, n) {
        // SAFETY: this function's contract.
        return unsafe { cm::copy_dtoh(stream, dst.cast(), src, n) }.map_err(Into::into);
    }
    let aux = aux(ctx)?;
    let mut pool = lock(&aux.staging);
    if !ensure_chunks(&mut pool, n) {
        // SAFETY: this function's contract.
        return unsafe { cm::copy_dtoh(stream, dst.cast(), src, n) }.map_err(Into::into);
    }
    let count = pool.len();
    let size = piece_size(pool[0].mem.size, n);
    let pieces = n.div_ceil(size);
    let issue = |c: &mut Chunk, piece: usize| -> CLResult<()> {
        let off = piece * size;
        let len = size.min(n - off);
        if c.busy {
            c.done.synchronize()?;
        }
        // SAFETY: the chunk is ours and nothing reads it until its `done` event has passed.
        unsafe { cm::copy_dtoh(stream, c.mem.host, src + off as DevicePtr, len) }?;
        c.done.record(stream)?;
        c.busy = true;
        Ok(())
    };
    for piece in 0..pieces.min(count) {
        issue(&mut pool[piece], piece)?;
    }
    for piece in 0..pieces {
        let c = &mut pool[piece % count];
        c.done.synchronize()?;
        c.busy = false;
        let off = piece * size;
        let len = size.min(n - off);
        // SAFETY: dst has n writable bytes; the chunk's DMA is complete.
        unsafe { par_copy(lane(ctx), dst.add(off), c.mem.host as *const u8, len) };
        if piece + count < pieces {
            issue(c, piece + count)?;
        }
    }
    Ok(())
}

/// The rows of an image region as `staged_rows` moves them: `count` rows of `bytes` bytes,
/// `per_slice` of them to a slice (a piece never spans two slices).
#[derive(Clone, Copy)]
pub struct Rows {
    pub count: usize,
    pub bytes: usize,
    pub per_slice: usize,
}

/// A pageable host <-> device transfer of `rows.count` rows of `rows.bytes` bytes each (an image
/// region), pipelined through the context's staging chunks like `htod_on` / `dtoh_on`: a piece
/// of whole rows, never crossing a slice, is copied between the
/// application's rows (`host_row(r)`: the address of row r) and a chunk (rows tight there) on
/// the host, and `dma(chunk, first_row, n_rows)` issues the device side of that piece on
/// `stream` (into or out of the chunk). Returns false, having done nothing, where staging does
/// not apply (a transfer below `image_staging_min`, rows wider than a chunk, no pinned memory):
/// the caller then copies directly.
///
/// # Safety
/// Every row `host_row` names has `rows.bytes` bytes (writable for `to_host`), valid until this
/// returns; `dma` issues copies on `stream` that touch only the chunk bytes of its piece.
pub unsafe fn staged_rows(
    stream: &Stream,
    ctx: &PrimaryContext,
    to_host: bool,
    rows: Rows,
    host_row: &dyn Fn(usize) -> *mut u8,
    dma: &mut dyn FnMut(*mut c_void, usize, usize) -> CLResult<()>,
) -> CLResult<bool> {
    let Rows { count: rows, bytes: row_bytes, per_slice: rows_per_slice } = rows;
    let n = rows.saturating_mul(row_bytes);
    if row_bytes == 0 || rows_per_slice == 0 || n < image_staging_min() {
        return Ok(false);
    }
    let aux = aux(ctx)?;
    let mut pool = lock(&aux.staging);
    if !ensure_chunks(&mut pool, n) || row_bytes > pool[0].mem.size {
        return Ok(false);
    }
    let count = pool.len();
    let per_piece = (piece_size(pool[0].mem.size, n) / row_bytes).max(1);
    let mut pieces = Vec::new();
    let mut first = 0;
    while first < rows {
        let len = per_piece.min(rows_per_slice - first % rows_per_slice).min(rows - first);
        pieces.push((first, len));
        first += len;
    }
    // Rows [first, first + len) of one slice are equally spaced in the application's memory:
    // one copy when they are also adjacent there.
    let host_copy = |chunk: *mut u8, first: usize, len: usize| {
        let h0 = host_row(first);
        let adjacent = host_row(first + len - 1) as usize == h0 as usize + (len - 1) * row_bytes;
        for i in 0..if adjacent { 1 } else { len } {
            let (h, c, b) = if adjacent {
                (h0, chunk, len * row_bytes)
            } else {
                // SAFETY: row i of the piece lies in the chunk (len rows of row_bytes).
                (host_row(first + i), unsafe { chunk.add(i * row_bytes) }, row_bytes)
            };
            // SAFETY: the rows are the caller's (contract) and the chunk's DMA is not running.
            unsafe {
                if to_host {
                    par_copy(lane(ctx), h, c, b)
                } else {
                    par_copy(lane(ctx), c, h, b)
                }
            }
        }
    };
    let mut issue = |c: &mut Chunk, (first, len): (usize, usize)| -> CLResult<()> {
        dma(c.mem.host, first, len)?;
        c.done.record(stream)?;
        c.busy = true;
        Ok(())
    };
    if !to_host {
        for (k, &p) in pieces.iter().enumerate() {
            let c = &mut pool[k % count];
            if c.busy {
                c.done.synchronize()?;
            }
            host_copy(c.mem.host.cast(), p.0, p.1);
            issue(c, p)?;
        }
        return Ok(true);
    }
    for (k, &p) in pieces.iter().enumerate().take(count) {
        let c = &mut pool[k];
        if c.busy {
            c.done.synchronize()?;
        }
        issue(c, p)?;
    }
    for (k, &p) in pieces.iter().enumerate() {
        let c = &mut pool[k % count];
        c.done.synchronize()?;
        c.busy = false;
        host_copy(c.mem.host.cast(), p.0, p.1);
        if let Some(&next) = pieces.get(k + count) {
            issue(c, next)?;
        }
    }
    Ok(true)
}
