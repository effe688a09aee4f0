//! Device memory from the CUDA driver's stream-ordered memory pool (CUDA 11.2 and later).
//!
//! cuMemAlloc maps fresh memory on every call and cuMemFree unmaps it: 71 and 57 us for a
//! 2.25 MiB buffer on an H200 (bench/poolalloc.c), against under 20 us for NVIDIA's whole
//! clCreateBuffer. A program that makes its buffers when it needs them (ompcl's regions: 3mm's
//! seven arrays cost 0.7 ms of its 4.3) or makes and releases them per operation (OpenCV's UMat)
//! pays that every time. The device's default pool keeps freed memory, up to a release threshold,
//! and hands it out again in 2-3 us; memory reserved in it when the context is made serves a
//! process's first buffers the same way (as core/transfer.rs's staging chunks, pinned then,
//! serve its first transfers). The reservation costs about 45 us a MiB once, at context creation.
//!
//! Used where it is simple and safe: the driver has the pool's entry points (looked up, not
//! required: CUDA 10.2 lacks them), the device reports pool support, and the allocation is made
//! in the context the pool was prepared for. With several CUDA devices, pool memory is reachable
//! from the others (peer copies of a multi-device context's buffers, peer.rs) only after
//! cuMemPoolSetAccess: a pool is used there only where every other device can have peer access
//! to this one and the pool grants it to all of them. Elsewhere, and with CUDACL_POOL=0, buffers come from cuMemAlloc as before.
//! CUDACL_POOL_RESERVE sets the reservation in bytes (default 64 MiB; 0: none).
//!
//! A pool free is ordered on a stream, where cuMemFree waited for the device to be idle: a
//! buffer released while a kernel on another queue's stream still runs on it could be handed out
//! again under that kernel. `free` therefore synchronises the context first, as cuMemFree did.
use super::error::{check, CudaResult};
use super::stream::Stream;
use super::symbols;
use super::sys;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

type GetDefaultPool = unsafe extern "C" fn(*mut *mut c_void, sys::CUdevice) -> sys::CUresult;
type SetAttribute = unsafe extern "C" fn(*mut c_void, i32, *mut c_void) -> sys::CUresult;
type AllocFromPool =
    unsafe extern "C" fn(*mut sys::CUdeviceptr, usize, *mut c_void, sys::CUstream) -> sys::CUresult;
type FreeAsync = unsafe extern "C" fn(sys::CUdeviceptr, sys::CUstream) -> sys::CUresult;
type SetAccess = unsafe extern "C" fn(*mut c_void, *const AccessDesc, usize) -> sys::CUresult;

/// CUmemAccessDesc (cuda.h): a CUmemLocation { type, id } and CUmemAccess_flags.
#[repr(C)]
struct AccessDesc {
    location_type: i32,
    id: i32,
    flags: i32,
}
/// CU_MEM_LOCATION_TYPE_DEVICE and CU_MEM_ACCESS_FLAGS_PROT_READWRITE.
const LOCATION_DEVICE: i32 = 1;
const ACCESS_READWRITE: i32 = 3;

/// CUmemPool_attribute's CU_MEMPOOL_ATTR_RELEASE_THRESHOLD (cuda.h; the same in every version).
const RELEASE_THRESHOLD: i32 = 4;

struct Fns {
    get_default: GetDefaultPool,
    set_attribute: SetAttribute,
    alloc: AllocFromPool,
    free: FreeAsync,
}

/// The pool entry points, if the driver has them all.
fn fns() -> Option<&'static Fns> {
    static FNS: OnceLock<Option<Fns>> = OnceLock::new();
    FNS.get_or_init(|| {
        // SAFETY: each name is looked up with its C signature from cuda.h.
        unsafe {
            Some(Fns {
                get_default: symbols::optional(&[symbols::POOL[0]])?,
                set_attribute: symbols::optional(&[symbols::POOL[1]])?,
                alloc: symbols::optional(&[symbols::POOL[2]])?,
                free: symbols::optional(&[symbols::POOL[3]])?,
            })
        }
    })
    .as_ref()
}

fn enabled() -> bool {
    std::env::var("CUDACL_POOL").map(|v| v != "0").unwrap_or(true)
}

fn reserve_bytes() -> usize {
    std::env::var("CUDACL_POOL_RESERVE").ok().and_then(|v| v.parse().ok()).unwrap_or(64 << 20)
}

/// One context's pool: the device's default pool and a stream of its own for the pool's
/// operations.
pub struct Pool {
    ctx: sys::CUcontext,
    pool: *mut c_void,
    stream: Stream,
    fns: &'static Fns,
}

// SAFETY: the handles are the driver's, usable from any thread.
unsafe impl Send for Pool {}
// SAFETY: as for Send; the driver API is thread-safe for these handles.
unsafe impl Sync for Pool {}

/// Gives every other device of the process read-write access to `pool` (device `own`'s), if
/// each can have peer access to it and the driver has cuMemPoolSetAccess.
fn grant_peers(pool: *mut c_void, own: sys::CUdevice, count: i32) -> bool {
    let others: Vec<sys::CUdevice> = (0..count).filter(|&d| d != own).collect();
    if !others.iter().all(|&d| super::peer::can_access(d, own)) {
        return false;
    }
    // SAFETY: the name's C signature (cuda.h, CUDA 11.2+).
    let Some(set_access) = (unsafe { symbols::optional::<SetAccess>(&["cuMemPoolSetAccess"]) }) else {
        return false;
    };
    let descs: Vec<AccessDesc> = others
        .iter()
        .map(|&d| AccessDesc { location_type: LOCATION_DEVICE, id: d, flags: ACCESS_READWRITE })
        .collect();
    // SAFETY: the device's default pool and `descs.len()` descriptors.
    unsafe { set_access(pool, descs.as_ptr(), descs.len()) == sys::CUresult::CUDA_SUCCESS }
}

/// The pools made so far, by context, for `alloc` to find the current context's.
static POOLS: Mutex<Vec<(usize, Weak<Pool>)>> = Mutex::new(Vec::new());

impl Pool {
    /// The pool for context `ctx` of `device` (current on this thread), with `reserve_bytes()`
    /// reserved in it, or None where pools are not used (module comment).
    pub fn new(device: sys::CUdevice, ctx: sys::CUcontext) -> Option<Arc<Pool>> {
        if !enabled() {
            return None;
        }
        let fns = fns()?;
        let mut count = 0;
        let mut supported = 0;
        // SAFETY: local out-values; an attribute an older driver does not know is an error (0).
        unsafe {
            sys::cuDeviceGetCount(&mut count);
            sys::cuDeviceGetAttribute(
                &mut supported,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                device,
            );
        }
        if count < 1 || supported == 0 {
            return None;
        }
        let mut pool = std::ptr::null_mut();
        // SAFETY: a local out-pointer and the context's device.
        if unsafe { (fns.get_default)(&mut pool, device) } != sys::CUresult::CUDA_SUCCESS {
            return None;
        }
        if count > 1 && !grant_peers(pool, device, count) {
            return None;
        }
        // Freed memory stays in the pool up to 1/32 of the device's memory (at most 512 MiB);
        // beyond, it goes back to the system when a stream synchronises.
        let mut total = 0usize;
        // SAFETY: a local out-value.
        unsafe { sys::cuDeviceTotalMem_v2(&mut total, device) };
        let mut keep: u64 = (total as u64 / 32).min(512 << 20);
        // SAFETY: the attribute takes a cuuint64_t.
        unsafe { (fns.set_attribute)(pool, RELEASE_THRESHOLD, (&mut keep as *mut u64).cast()) };
        let stream = Stream::new().ok()?;
        let p = Arc::new(Pool { ctx, pool, stream, fns });
        let reserve = reserve_bytes().min(keep as usize);
        if reserve > 0 {
            if let Ok(ptr) = p.alloc(reserve) {
                p.free(ptr);
                let _ = p.stream.synchronize();
            }
        }
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        pools.retain(|(_, w)| w.strong_count() > 0);
        pools.push((ctx as usize, Arc::downgrade(&p)));
        Some(p)
    }

    /// `size` bytes, usable on any stream of the context when this returns.
    fn alloc(&self, size: usize) -> CudaResult<sys::CUdeviceptr> {
        let mut ptr = 0;
        // SAFETY: a local out-pointer, the pool and a stream of this context.
        check(unsafe { (self.fns.alloc)(&mut ptr, size.max(1), self.pool, self.stream.0) })?;
        if let Err(e) = self.stream.synchronize() {
            // SAFETY: allocated just above, not handed out.
            unsafe { (self.fns.free)(ptr, self.stream.0) };
            return Err(e);
        }
        Ok(ptr)
    }

    /// Gives `ptr` (from `alloc`) back, once everything queued in the context has finished.
    pub fn free(&self, ptr: sys::CUdeviceptr) {
        let mut current = std::ptr::null_mut();
        // SAFETY: local out-pointer; the context is alive (its buffers hold it).
        unsafe {
            sys::cuCtxGetCurrent(&mut current);
            if current != self.ctx {
                sys::cuCtxSetCurrent(self.ctx);
            }
            sys::cuCtxSynchronize();
            (self.fns.free)(ptr, self.stream.0);
            if current != self.ctx {
                sys::cuCtxSetCurrent(current);
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

/// `size` bytes from the current context's pool, with the pool to free them to; None where the
/// context has no pool or the pool could not serve them (the caller uses cuMemAlloc).
pub fn alloc(size: usize) -> Option<(sys::CUdeviceptr, Arc<Pool>)> {
    fns()?;
    let mut current = std::ptr::null_mut();
    // SAFETY: a local out-pointer.
    unsafe { sys::cuCtxGetCurrent(&mut current) };
    let pool = {
        let pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        pools.iter().find(|(c, _)| *c == current as usize).and_then(|(_, w)| w.upgrade())?
    };
    pool.alloc(size).ok().map(|p| (p, pool))
}
