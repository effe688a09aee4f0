//! A device's primary CUDA context, and making it current on the calling thread.
use super::error::{check, CudaResult};
use super::sys;
use std::cell::Cell;

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
