//! Device memory, pinned host memory and the copies between them.
use super::error::{check, CudaError, CudaResult};
use super::pool::Pool;
use super::stream::Stream;
use super::sys;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock, Mutex};

pub type DevicePtr = sys::CUdeviceptr;

/// Host ranges this process page-locked (cuMemHostAlloc, cuMemHostRegister): start -> end.
/// Copies whose host side lies inside one can go straight to the DMA engine.
static PINNED: LazyLock<Mutex<BTreeMap<usize, usize>>> = LazyLock::new(|| Mutex::new(BTreeMap::new()));

fn pinned_add(p: *mut c_void, n: usize) {
    PINNED.lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize, p as usize + n);
}

fn pinned_remove(p: *mut c_void) {
    PINNED.lock().unwrap_or_else(|e| e.into_inner()).remove(&(p as usize));
}

/// True when [p, p+n) lies inside one page-locked range.
pub fn is_pinned(p: *const c_void, n: usize) -> bool {
    let a = p as usize;
    let map = PINNED.lock().unwrap_or_else(|e| e.into_inner());
    match map.range(..=a).next_back() {
        Some((_, &end)) => a.checked_add(n).is_some_and(|e| e <= end),
        None => false,
    }
}

/// True when the driver knows nothing of `[p, p+n)`: ordinary pageable host memory, which
/// asynchronous copies take at the call (host to device) or fill before returning (device to
/// host). Memory pinned or registered by anyone in the process is not pageable.
pub fn is_pageable(p: *const c_void, n: usize) -> bool {
    let last = (p as usize).saturating_add(n.max(1) - 1);
    [p as usize, last].iter().all(|&a| {
        let mut ty = 0u32;
        // SAFETY: a local out-value of the attribute's size (CUmemorytype, an int); the address is
        // only looked up.
        let r = unsafe {
            sys::cuPointerGetAttribute(
                (&mut ty as *mut u32).cast(),
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                a as sys::CUdeviceptr,
            )
        };
        r == sys::CUresult::CUDA_ERROR_INVALID_VALUE
    })
}

/// Device memory from the context's pool (pool.rs) or from cuMemAlloc, freed on drop.
pub struct DeviceAlloc {
    pub ptr: DevicePtr,
    pub size: usize,
    pool: Option<Arc<Pool>>,
}

impl DeviceAlloc {
    /// The right context must be current.
    pub fn new(size: usize) -> CudaResult<DeviceAlloc> {
        if let Some((ptr, pool)) = super::pool::alloc(size) {
            return Ok(DeviceAlloc { ptr, size, pool: Some(pool) });
        }
        let mut ptr = 0;
        // SAFETY: a local out-pointer.
        check(unsafe { sys::cuMemAlloc_v2(&mut ptr, size.max(1)) })?;
        Ok(DeviceAlloc { ptr, size, pool: None })
    }
}

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        match &self.pool {
            Some(pool) => pool.free(self.ptr),
            // SAFETY: allocated by `new`, freed once.
            None => unsafe {
                sys::cuMemFree_v2(self.ptr);
            },
        }
    }
}

/// Page-locked host memory from cuMemHostAlloc, mapped into the device address space.
pub struct PinnedAlloc {
    pub host: *mut c_void,
    pub size: usize,
}

// SAFETY: plain memory.
unsafe impl Send for PinnedAlloc {}
// SAFETY: shared access hands out the address only; who writes through it synchronises.
unsafe impl Sync for PinnedAlloc {}

impl PinnedAlloc {
    pub fn new(size: usize) -> CudaResult<PinnedAlloc> {
        let mut host = std::ptr::null_mut();
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
        // SAFETY: a local out-pointer.
        check(unsafe { sys::cuMemHostAlloc(&mut host, size.max(1), flags) })?;
        pinned_add(host, size.max(1));
        Ok(PinnedAlloc { host, size })
    }

    /// Its address as seen by the current context's device.
    pub fn device_ptr(&self) -> CudaResult<DevicePtr> {
        device_ptr_of_host(self.host)
    }
}

impl Drop for PinnedAlloc {
    fn drop(&mut self) {
        pinned_remove(self.host);
        // SAFETY: allocated by `new`, freed once.
        unsafe { sys::cuMemFreeHost(self.host) };
    }
}

/// Memory the host and the device address at the same pointer: coarse-grain buffer SVM.
pub enum SharedAlloc {
    /// cuMemAllocManaged (attached globally): pages move to whichever side touches them, on
    /// devices with concurrent managed access (the host may use it while other kernels run).
    Managed { ptr: DevicePtr, size: usize },
    /// cuMemHostAlloc'd page-locked memory mapped into the device's address space, whose device
    /// address is its host address (unified addressing): devices without concurrent managed
    /// access (Jetson, where host and GPU share the memory anyway).
    Pinned(PinnedAlloc),
}

impl SharedAlloc {
    /// Managed memory of `size` bytes (the device's context current).
    pub fn managed(size: usize) -> CudaResult<SharedAlloc> {
        let mut ptr = 0;
        // SAFETY: a local out-pointer; CU_MEM_ATTACH_GLOBAL = 1.
        check(unsafe { sys::cuMemAllocManaged(&mut ptr, size.max(1), 1) })?;
        Ok(SharedAlloc::Managed { ptr, size })
    }

    /// Mapped page-locked memory of `size` bytes whose device address equals its host address
    /// (the device's context current); CUDA_ERROR_NOT_SUPPORTED where they differ.
    pub fn pinned(size: usize) -> CudaResult<SharedAlloc> {
        let p = PinnedAlloc::new(size)?;
        if p.device_ptr()? != p.host as DevicePtr {
            return Err(CudaError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
        }
        Ok(SharedAlloc::Pinned(p))
    }

    /// The pointer both sides use.
    pub fn ptr(&self) -> usize {
        match self {
            SharedAlloc::Managed { ptr, .. } => *ptr as usize,
            SharedAlloc::Pinned(p) => p.host as usize,
        }
    }
}

impl Drop for SharedAlloc {
    fn drop(&mut self) {
        if let SharedAlloc::Managed { ptr, .. } = self {
            // SAFETY: allocated by `managed`, freed once.
            unsafe { sys::cuMemFree_v2(*ptr) };
        }
    }
}

/// Moves managed memory [ptr, ptr + n) to `device` (-1, CU_DEVICE_CPU: the host) in `stream`'s
/// order: a hint, the pages would move on first use anyway.
pub fn prefetch_managed(stream: &Stream, ptr: DevicePtr, n: usize, device: sys::CUdevice) -> CudaResult<()> {
    // SAFETY: managed memory of ours (a bad range is a driver error, not host memory).
    check(unsafe { sys::cuMemPrefetchAsync(ptr, n, device, stream.0) })
}

/// A copy between any two addresses unified addressing knows (device, managed, pinned or
/// pageable host memory), on `stream`.
///
/// # Safety
/// Host ranges stay valid (a destination untouched) until the copy is done on `stream`.
pub unsafe fn copy_unified(stream: &Stream, dst: usize, src: usize, n: usize) -> CudaResult<()> {
    // SAFETY: the ranges are valid, per this function's contract.
    check(unsafe { sys::cuMemcpyAsync(dst as DevicePtr, src as DevicePtr, n, stream.0) })
}

/// Application memory page-locked in place with cuMemHostRegister (CL_MEM_USE_HOST_PTR).
pub struct HostRegistration {
    pub host: *mut c_void,
}

// SAFETY: the registration holds an address and unregisters it once; the driver call is
// thread-safe.
unsafe impl Send for HostRegistration {}
// SAFETY: as for Send: shared access reads the address only.
unsafe impl Sync for HostRegistration {}

impl HostRegistration {
    /// # Safety
    /// `host` points to `size` bytes of the application's memory that stay allocated until the
    /// registration is dropped.
    pub unsafe fn new(host: *mut c_void, size: usize) -> CudaResult<HostRegistration> {
        let flags = sys::CU_MEMHOSTREGISTER_PORTABLE | sys::CU_MEMHOSTREGISTER_DEVICEMAP;
        // SAFETY: the range is live application memory, per this function's contract.
        check(unsafe { sys::cuMemHostRegister_v2(host, size, flags) })?;
        pinned_add(host, size);
        Ok(HostRegistration { host })
    }

    pub fn device_ptr(&self) -> CudaResult<DevicePtr> {
        device_ptr_of_host(self.host)
    }
}

impl Drop for HostRegistration {
    fn drop(&mut self) {
        pinned_remove(self.host);
        // SAFETY: registered by `new`, unregistered once.
        unsafe { sys::cuMemHostUnregister(self.host) };
    }
}

fn device_ptr_of_host(host: *mut c_void) -> CudaResult<DevicePtr> {
    let mut d = 0;
    // SAFETY: a local out-pointer; host is registered memory (or the driver says no).
    check(unsafe { sys::cuMemHostGetDevicePointer_v2(&mut d, host, 0) })?;
    Ok(d)
}

/// Asynchronous copies and fills on a stream. Pageable host memory makes the driver copy
/// synchronously with respect to the host; callers that must not block use pinned memory.
///
/// # Safety
/// `src` has `n` readable bytes that stay unchanged until the copy is done on `stream`.
pub unsafe fn copy_htod(stream: &Stream, dst: DevicePtr, src: *const c_void, n: usize) -> CudaResult<()> {
    // SAFETY: the source range is valid until the copy completes, per this function's contract.
    check(unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src, n, stream.0) })
}

/// # Safety
/// `dst` has `n` writable bytes that nothing else touches until the copy is done on `stream`.
pub unsafe fn copy_dtoh(stream: &Stream, dst: *mut c_void, src: DevicePtr, n: usize) -> CudaResult<()> {
    // SAFETY: the destination range is valid until the copy completes, per this function's contract.
    check(unsafe { sys::cuMemcpyDtoHAsync_v2(dst, src, n, stream.0) })
}

pub fn copy_dtod(stream: &Stream, dst: DevicePtr, src: DevicePtr, n: usize) -> CudaResult<()> {
    // SAFETY: device memory only; a bad address is a driver error, not host memory.
    check(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, n, stream.0) })
}

/// Between devices (or contexts): the source context's device reads, the destination's writes.
///
/// # Safety
/// `dst_ctx` and `src_ctx` are live CUDA contexts that own `dst` and `src`.
pub unsafe fn copy_peer(
    stream: &Stream,
    dst: DevicePtr,
    dst_ctx: sys::CUcontext,
    src: DevicePtr,
    src_ctx: sys::CUcontext,
    n: usize,
) -> CudaResult<()> {
    // SAFETY: live contexts, per this function's contract.
    check(unsafe { sys::cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, n, stream.0) })
}

pub fn fill_u8(stream: &Stream, dst: DevicePtr, value: u8, n: usize) -> CudaResult<()> {
    // SAFETY: device memory only; a bad address is a driver error, not host memory.
    check(unsafe { sys::cuMemsetD8Async(dst, value, n, stream.0) })
}

pub fn fill_u16(stream: &Stream, dst: DevicePtr, value: u16, n: usize) -> CudaResult<()> {
    // SAFETY: device memory only; a bad address is a driver error, not host memory.
    check(unsafe { sys::cuMemsetD16Async(dst, value, n, stream.0) })
}

pub fn fill_u32(stream: &Stream, dst: DevicePtr, value: u32, n: usize) -> CudaResult<()> {
    // SAFETY: device memory only; a bad address is a driver error, not host memory.
    check(unsafe { sys::cuMemsetD32Async(dst, value, n, stream.0) })
}

/// 32-bit fill of a 2-D region: `width` words in each of `height` rows `pitch` bytes apart.
pub fn fill_2d_u32(
    stream: &Stream,
    dst: DevicePtr,
    pitch: usize,
    value: u32,
    width: usize,
    height: usize,
) -> CudaResult<()> {
    // SAFETY: device memory only; a bad address is a driver error, not host memory.
    check(unsafe { sys::cuMemsetD2D32Async(dst, pitch, value, width, height, stream.0) })
}

/// A 3-D (or 2-D) rectangular copy described by cuMemcpy3D's parameter block.
///
/// # Safety
/// The host ranges `p` names stay valid (and, for a destination, untouched) until the copy is
/// done on `stream`.
pub unsafe fn copy_3d(stream: &Stream, p: &sys::CUDA_MEMCPY3D) -> CudaResult<()> {
    // SAFETY: the ranges are valid, per this function's contract.
    check(unsafe { sys::cuMemcpy3DAsync_v2(p, stream.0) })
}

/// Waits for all work of the current context (before releasing memory the application owns).
pub fn synchronize_current() -> CudaResult<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::cuCtxSynchronize() })
}

/// (free, total) bytes of the current context's device.
pub fn mem_info() -> CudaResult<(usize, usize)> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: local out-pointers.
    check(unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) })?;
    Ok((free, total))
}
