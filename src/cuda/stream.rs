//! CUDA streams: one per OpenCL command queue.
use super::error::{check, CudaResult};
use super::sys;

pub struct Stream(pub sys::CUstream);

// SAFETY: streams may be used from any thread.
unsafe impl Send for Stream {}
// SAFETY: the driver API is thread-safe for a stream's handle.
unsafe impl Sync for Stream {}

impl Stream {
    /// A non-blocking stream (it does not synchronise with the legacy default stream, which
    /// other libraries in the process may use).
    pub fn new() -> CudaResult<Stream> {
        let mut s = std::ptr::null_mut();
        // SAFETY: the caller made the right context current.
        check(unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) })?;
        Ok(Stream(s))
    }

    pub fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: a stream this wrapper owns.
        check(unsafe { sys::cuStreamSynchronize(self.0) })
    }

    /// Runs `f(data)` on a driver thread once all earlier work on the stream is done.
    /// `f` must not call CUDA.
    ///
    /// # Safety
    /// `f(data)` is sound to call once, on another thread, at any later time.
    pub unsafe fn host_callback(
        &self,
        f: unsafe extern "C" fn(*mut std::ffi::c_void),
        data: *mut std::ffi::c_void,
    ) -> CudaResult<()> {
        // SAFETY: `f` may run on `data` later, per this function's contract.
        check(unsafe { sys::cuLaunchHostFunc(self.0, Some(f), data) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the stream is owned here and destroyed once.
        unsafe { sys::cuStreamDestroy_v2(self.0) };
    }
}
