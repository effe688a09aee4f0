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
pub fn entry_ret<T>(errcode_ret: *mut cl_int, body: impl FnOnce() -> CLResult<*mut T>) -> *mut T {
    let (value, code) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => (v, CL_SUCCESS),
        Ok(Err(code)) => (ptr::null_mut(), code),
        Err(_) => (ptr::null_mut(), CL_OUT_OF_HOST_MEMORY),
    };
    if !errcode_ret.is_null() {
        // SAFETY: the caller passed a pointer to a cl_int, or NULL (checked).
        unsafe { errcode_ret.write(code) };
    }
    value
}

/// Writes `value` through an optional out-pointer (NULL means "not wanted").
pub fn write_opt<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL out-pointers point to a T per the OpenCL API contract.
        unsafe { out.write(value) };
    }
}

/// A (pointer, count) pair from the API as a slice; NULL with count 0 is the empty slice.
/// `err` is returned when exactly one of the two says "empty".
pub fn slice_arg<'a, T>(p: *const T, n: usize, err: cl_int) -> CLResult<&'a [T]> {
    match (p.is_null(), n == 0) {
        (true, true) => Ok(&[]),
        (false, false) => Ok(unsafe { std::slice::from_raw_parts(p, n) }),
        _ => Err(err),
    }
}

/// Locks a mutex, ignoring poisoning: a panic in another entry point was already turned into an
/// error code and must not make every later call fail.
pub fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads a NUL-terminated C string argument.
pub fn c_str<'a>(p: *const std::os::raw::c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the API passes NUL-terminated strings.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok()
}
