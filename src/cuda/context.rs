//! A device's primary CUDA context, and making it current on the calling thread.
use super::error::{check, CudaResult};
use super::fault;
use super::pool::Pool;
use super::sys;
use std::any::Any;
use std::cell::Cell;
use std::sync::{Arc, Mutex, PoisonError};

/// The device's primary context, retained for as long as this value lives; or, after a kernel
/// fault left the primary context unusable while it is still in use, a context of cudacl's own
/// (`create_private`), destroyed with this value.
pub struct PrimaryContext {
    pub device: sys::CUdevice,
    pub ctx: sys::CUcontext,
    /// Made by `create_private` (cuCtxCreate), not retained.
    private: bool,
    /// State the layers above keep per context (core's staging chunks and upload stream),
    /// dropped with the context, before it is released.
    attached: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
    /// The device memory pool buffers come from (pool.rs): None until `prepare_pool` ran, then
    /// what it made (None where pools are not used).
    pool: Mutex<Option<Option<Arc<Pool>>>>,
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
        Ok(PrimaryContext { device, ctx, private: false, attached: Mutex::new(None), pool: Mutex::new(None) })
    }

    /// A new context of its own on `device`, for when the primary one faulted and is still used.
    pub fn create_private(device: sys::CUdevice) -> CudaResult<PrimaryContext> {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: a local out-pointer and a device ordinal; flags 0 are the driver's defaults.
        check(unsafe { sys::cuCtxCreate_v2(&mut ctx, 0, device) })?;
        // cuCtxCreate made it current on this thread.
        CURRENT.with(|c| c.set(ctx as usize));
        Ok(PrimaryContext { device, ctx, private: true, attached: Mutex::new(None), pool: Mutex::new(None) })
    }

    /// Whether a kernel faulted in this context (every later command in it fails).
    pub fn faulted(&self) -> bool {
        fault::faulted(self.ctx)
    }

    /// The state of type `T` attached to this context, made by `make` on first use.
    pub fn attachment<T: Any + Send + Sync, E>(
        &self,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let mut slot = self.attached.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Ok(t)) = slot.clone().map(|a| a.downcast::<T>()) {
            return Ok(t);
        }
        let t = Arc::new(make()?);
        *slot = Some(t.clone());
        Ok(t)
    }

    /// Makes the memory pool this context's buffers come from, with its reservation (pool.rs),
    /// once: a device's first context creation pays for it.
    pub fn prepare_pool(&self) {
        let mut slot = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() && self.make_current().is_ok() {
            *slot = Some(Pool::new(self.device, self.ctx));
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
        // What is attached goes first, while the context exists (current, for its destructors).
        let _ = self.make_current();
        drop(self.attached.lock().unwrap_or_else(PoisonError::into_inner).take());
        drop(self.pool.lock().unwrap_or_else(PoisonError::into_inner).take());
        CURRENT.with(|c| {
            if c.get() == self.ctx as usize {
                c.set(0)
            }
        });
        if self.private {
            // SAFETY: created by `create_private`, destroyed once, here.
            unsafe { sys::cuCtxDestroy_v2(self.ctx) };
        } else {
            // We retained it in `retain`. (`_v2` only from CUDA 11.0: see symbols.rs.)
            super::symbols::primary_ctx_release(self.device);
        }
        // Released (and reset, if it was the last reference) or destroyed: a new context may get
        // the same address, and must not inherit this one's fault.
        fault::forget(self.ctx);
    }
}
