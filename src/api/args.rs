//! Reading and writing the application's pointer arguments. Each function trusts the pointer it
//! is given as far as the OpenCL specification says the caller must make it valid, which is why
//! they are `unsafe`: the entry point that calls one vouches for that at the call site.
use crate::base::entry::CLResult;
use crate::cl::*;

/// Writes `value` through an optional out-pointer (NULL means "not wanted").
///
/// # Safety
/// `out` is NULL or valid for writing one `T`.
pub unsafe fn write_opt<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL, and writable per this function's contract.
        unsafe { out.write(value) };
    }
}

/// A (pointer, count) pair from the API as a slice; NULL with count 0 is the empty slice.
/// `err` is returned when exactly one of the two says "empty".
///
/// # Safety
/// A non-NULL `p` points to `n` initialised `T`s that stay unchanged for `'a`.
pub unsafe fn slice_arg<'a, T>(p: *const T, n: usize, err: cl_int) -> CLResult<&'a [T]> {
    match (p.is_null(), n == 0) {
        (true, true) => Ok(&[]),
        // SAFETY: non-NULL with n elements, per this function's contract.
        (false, false) => Ok(unsafe { std::slice::from_raw_parts(p, n) }),
        _ => Err(err),
    }
}

/// Reads a NUL-terminated C string argument (None for NULL or invalid UTF-8).
///
/// # Safety
/// A non-NULL `p` points to a NUL-terminated string that stays unchanged for `'a`.
pub unsafe fn c_str<'a>(p: *const std::os::raw::c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated, per this function's contract.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok()
}

/// The (name, value) pairs of a 0-terminated property list, read one pair at a time (a caller
/// that stops at its first bad name reads no further); nothing for NULL.
///
/// # Safety
/// `props` is NULL or a list of (name, value) pairs ended by a 0 name, unchanged while the
/// iterator is used.
pub unsafe fn property_pairs<T: Copy + Default + PartialEq>(props: *const T) -> impl Iterator<Item = (T, T)> {
    let mut i = 0;
    std::iter::from_fn(move || {
        if props.is_null() {
            return None;
        }
        // SAFETY: the list goes on to its 0 name (this function's contract) and `i` has not
        // passed it: iteration ends there.
        let name = unsafe { *props.add(i) };
        if name == T::default() {
            return None;
        }
        // SAFETY: a value follows every non-zero name (this function's contract).
        let value = unsafe { *props.add(i + 1) };
        i += 2;
        Some((name, value))
    })
}
