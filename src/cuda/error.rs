//! CUDA status codes as Rust errors, and their OpenCL equivalents.
use super::sys;
use crate::cl::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaError(pub sys::CUresult);

pub type CudaResult<T> = Result<T, CudaError>;

/// Turns a CUresult into a Result. A sticky error (a kernel fault) marks the calling thread's
/// current context as faulted (see `fault::note_fault`).
pub fn check(r: sys::CUresult) -> CudaResult<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        let e = CudaError(r);
        if e.is_sticky() {
            super::fault::note_fault();
        }
        Err(e)
    }
}

impl CudaError {
    /// The driver's name for the error (e.g. "CUDA_ERROR_ILLEGAL_ADDRESS").
    pub fn name(&self) -> String {
        let mut p: *const std::os::raw::c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string or leaves it NULL.
        unsafe { sys::cuGetErrorName(self.0, &mut p) };
        if p.is_null() {
            format!("CUDA error {}", self.0 as i32)
        } else {
            // SAFETY: the driver returns a static NUL-terminated string (checked non-NULL).
            unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }

    /// An error that leaves the context unusable until it is reset: a kernel faulted (CUDA
    /// reports it to every later call in the context).
    pub fn is_sticky(&self) -> bool {
        use sys::CUresult as R;
        matches!(
            self.0,
            R::CUDA_ERROR_ILLEGAL_ADDRESS
                | R::CUDA_ERROR_LAUNCH_TIMEOUT
                | R::CUDA_ERROR_ASSERT
                | R::CUDA_ERROR_HARDWARE_STACK_ERROR
                | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
                | R::CUDA_ERROR_MISALIGNED_ADDRESS
                | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
                | R::CUDA_ERROR_INVALID_PC
                | R::CUDA_ERROR_LAUNCH_FAILED
        )
    }

    /// The OpenCL code for a failed allocation.
    pub fn alloc_code(&self) -> cl_int {
        match self.0 {
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => CL_MEM_OBJECT_ALLOCATION_FAILURE,
            _ => CL_OUT_OF_RESOURCES,
        }
    }
}

impl From<CudaError> for cl_int {
    /// Anything the device fails at is CL_OUT_OF_RESOURCES in OpenCL terms, except host memory.
    fn from(e: CudaError) -> cl_int {
        match e.0 {
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => CL_MEM_OBJECT_ALLOCATION_FAILURE,
            sys::CUresult::CUDA_ERROR_INVALID_VALUE => CL_INVALID_VALUE,
            _ => CL_OUT_OF_RESOURCES,
        }
    }
}
