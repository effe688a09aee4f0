//! How every extern "C" entry point runs its body: errors are `Err(cl_int)`, and a panic never
//! crosses the FFI boundary (it becomes CL_OUT_OF_HOST_MEMORY, the spec's catch-all).
use crate::cl::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

pub type CLResult<T> = Result<T, cl_int>;

/// For entry points that return a status code.
pub fn entry(body: impl FnOnce() -> CLResult<()>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => CL_OUT_OF_HOST_MEMORY,
    }
}

/// For entry points that return a handle (or pointer) and report through `errcode_ret`.
///
/// # Safety
/// `errcode_ret` is NULL or points to a writable `cl_int`.
pub unsafe fn entry_ret<T>(errcode_ret: *mut cl_int, body: impl FnOnce() -> CLResult<*mut T>) -> *mut T {
    let (value, code) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => (v, CL_SUCCESS),
        Ok(Err(code)) => (ptr::null_mut(), code),
        Err(_) => (ptr::null_mut(), CL_OUT_OF_HOST_MEMORY),
    };
    if !errcode_ret.is_null() {
        // SAFETY: non-NULL, and writable per this function's contract.
        unsafe { errcode_ret.write(code) };
    }
    value
}

/// Locks a mutex, ignoring poisoning: a panic in another entry point was already turned into an
/// error code and must not make every later call fail.
pub fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
