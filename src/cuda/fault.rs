//! Contexts that reported a sticky error (a kernel fault): error.rs records them as each failing
//! call returns, context.rs asks and forgets. Its own file so that neither of those two imports
//! the other.
use super::sys;
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

/// Whether the context `ctx` faulted.
pub fn faulted(ctx: sys::CUcontext) -> bool {
    let faulted = FAULTED.lock().unwrap_or_else(PoisonError::into_inner);
    faulted.as_ref().is_some_and(|set| set.contains(&(ctx as usize)))
}

/// Forgets `ctx`'s fault: it was released or destroyed, and a new context may get its address.
pub fn forget(ctx: sys::CUcontext) {
    if let Some(set) = FAULTED.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
        set.remove(&(ctx as usize));
    }
}
