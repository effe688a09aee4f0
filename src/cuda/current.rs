//! The calling thread's current CUDA context, kept across code that switches it.
use super::sys;

/// Runs `f` and then makes the context that was current before current again (for code that
/// switches contexts where its caller does not expect it, e.g. freeing memory in a destructor).
pub fn preserving_current_context<R>(f: impl FnOnce() -> R) -> R {
    let mut saved = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let ok = unsafe { sys::cuCtxGetCurrent(&mut saved) } == sys::CUresult::CUDA_SUCCESS;
    let r = f();
    if ok {
        // SAFETY: the context was current a moment ago (NULL is allowed too).
        unsafe { sys::cuCtxSetCurrent(saved) };
    }
    r
}
