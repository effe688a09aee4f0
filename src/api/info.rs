//! The one writer behind every clGet*Info: checks the caller's buffer size and reports the size
//! needed, the same way for every query.
use crate::base::entry::CLResult;
use crate::cl::*;
use std::ffi::c_void;

/// The (param_value_size, param_value, param_value_size_ret) triple of a clGet*Info call.
pub struct InfoOut {
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
}

impl InfoOut {
    /// # Safety
    /// `value` is NULL or has `size` writable bytes; `size_ret` is NULL or a writable `usize`;
    /// both stay valid while the `InfoOut` lives.
    pub unsafe fn new(size: usize, value: *mut c_void, size_ret: *mut usize) -> InfoOut {
        InfoOut { size, value, size_ret }
    }

    /// Writes raw bytes: CL_INVALID_VALUE when a buffer is given and is too small.
    pub fn bytes(self, data: &[u8]) -> CLResult<()> {
        if !self.value.is_null() {
            if self.size < data.len() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: `size` writable bytes at `value` (the contract of `new`), and size >= len.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.value.cast(), data.len()) };
        }
        if !self.size_ret.is_null() {
            // SAFETY: non-NULL size_ret is a writable usize (the contract of `new`).
            unsafe { self.size_ret.write(data.len()) };
        }
        Ok(())
    }

    /// A plain value (cl_uint, cl_ulong, size_t, a handle, ...).
    pub fn value<T: Copy>(self, v: T) -> CLResult<()> {
        self.slice(std::slice::from_ref(&v))
    }

    /// An array of plain values (size_t[3], cl_device_id[n], ...).
    pub fn slice<T: Copy>(self, v: &[T]) -> CLResult<()> {
        // SAFETY: T is Copy plain data; we only read its bytes.
        let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) };
        self.bytes(bytes)
    }

    /// A cl_bool.
    pub fn bool(self, b: bool) -> CLResult<()> {
        self.value::<cl_bool>(if b { CL_TRUE } else { CL_FALSE })
    }

    /// A NUL-terminated string.
    pub fn str(self, s: &str) -> CLResult<()> {
        let mut v = Vec::with_capacity(s.len() + 1);
        v.extend_from_slice(s.as_bytes());
        v.push(0);
        self.bytes(&v)
    }
}
