//! A device's primary CUDA context, and making it current on the calling thread.
use super::error::{check, CudaResult};
use super::sys;
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

/// Contexts (by address) that reported a sticky error: unusable until the primary context is
/// reset, which the driver does when its last reference is released.
static FAULTED: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

/// Records that the calling thread's current context faulted.
pub fn note_fault() {
    let mut ctx = std::ptr::null_mut();
    // SAFETY: a local out-pointer.
    if unsafe { sys::cuCtxGetCurrent(&mut ctx) } == sys::CUresult::CUDA_SUCCESS && !ctx.is_null() {
        FAULTED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(HashSet::new)
            .insert(ctx as usize);
    }
}

/// The device's primary context, retained for as long as this value lives.
pub struct PrimaryContext {
    pub device: sys::CUdevice,
    pub ctx: sys::CUcontext,
}

// SAFETY: CUDA contexts may be used from any thread.
unsafe impl Send for PrimaryContext {}
// SAFETY: the driver API is thread-safe for a context's handle.
unsafe impl Sync for PrimaryContext {}

thread_local! {
    /// What this thread last made current, to skip redundant cuCtxSetCurrent calls on hot paths.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

impl PrimaryContext {
    pub fn retain(device: sys::CUdevice) -> CudaResult<PrimaryContext> {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: valid out-pointer and device ordinal.
        check(unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, device) })?;
        Ok(PrimaryContext { device, ctx })
    }

    /// Whether a kernel faulted in this context (every later command in it fails).
    pub fn faulted(&self) -> bool {
        let faulted = FAULTED.lock().unwrap_or_else(PoisonError::into_inner);
        faulted.as_ref().is_some_and(|set| set.contains(&(self.ctx as usize)))
    }

    /// Forgets the fault: for the owner dropping its last reference, after which the driver
    /// resets the context (a new one may get the same address).
    pub fn forget_fault(&self) {
        if let Some(set) = FAULTED.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            set.remove(&(self.ctx as usize));
        }
    }

    /// Makes this context current on the calling thread (cheap when it already is).
    pub fn make_current(&self) -> CudaResult<()> {
        let want = self.ctx as usize;
        if CURRENT.with(|c| c.get()) == want {
            let mut now = std::ptr::null_mut();
            // The application may have switched contexts itself (CUDA interop): verify.
            // SAFETY: a local out-pointer.
            unsafe { sys::cuCtxGetCurrent(&mut now) };
            if now as usize == want {
                return Ok(());
            }
        }
        // SAFETY: a retained context.
        check(unsafe { sys::cuCtxSetCurrent(self.ctx) })?;
        CURRENT.with(|c| c.set(want));
        Ok(())
    }
}

impl Drop for PrimaryContext {
    fn drop(&mut self) {
        CURRENT.with(|c| {
            if c.get() == self.ctx as usize {
                c.set(0)
            }
        });
        // SAFETY: we retained it in `retain`.
        unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.device) };
    }
}

/// Resets `device`'s primary context (cuDevicePrimaryCtxReset): after a sticky error, once no
/// object uses it, so that the next retain starts a working one.
pub fn reset_primary(device: sys::CUdevice) {
    CURRENT.with(|c| c.set(0));
    // SAFETY: a device ordinal; the caller no longer uses anything of the old context.
    unsafe { sys::cuDevicePrimaryCtxReset_v2(device) };
}
