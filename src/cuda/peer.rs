//! Peer access between the GPUs of one OpenCL context.
//!
//! A buffer used on two devices in turn moves between them with cuMemcpyPeerAsync. Without peer
//! access the driver stages such a copy through host memory; with it, the copy engines move the
//! data over NVLink or PCIe directly. So a context over several devices enables access both ways
//! between every pair the hardware allows (cuDeviceCanAccessPeer), once per pair per process:
//! the primary contexts are shared, and so is the access enabled between them.
use super::current::preserving_current_context;
use super::sys;
use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

/// Ordered pairs of contexts (by address) whose access is enabled: (accessing, accessed).
static ENABLED: Mutex<Option<HashSet<(usize, usize)>>> = Mutex::new(None);

/// Whether device `a` can address device `b`'s memory (false on any error).
pub fn can_access(a: sys::CUdevice, b: sys::CUdevice) -> bool {
    let mut can = 0;
    // SAFETY: a local out-value and two device ordinals.
    let r = unsafe { sys::cuDeviceCanAccessPeer(&mut can, a, b) };
    r == sys::CUresult::CUDA_SUCCESS && can != 0
}

/// Enables access between every pair of `ctxs` ((device, context): different devices) that can
/// have it. Failures are not errors: copies between the pair then go through the host, as they
/// did before.
pub fn enable_among(ctxs: &[(sys::CUdevice, sys::CUcontext)]) {
    if ctxs.len() < 2 {
        return;
    }
    let mut enabled = ENABLED.lock().unwrap_or_else(PoisonError::into_inner);
    let enabled = enabled.get_or_insert_with(HashSet::new);
    preserving_current_context(|| {
        for &(a_dev, a_ctx) in ctxs {
            for &(b_dev, b_ctx) in ctxs {
                let key = (a_ctx as usize, b_ctx as usize);
                if a_dev == b_dev || enabled.contains(&key) || !can_access(a_dev, b_dev) {
                    continue;
                }
                // SAFETY: a context the caller retains (preserving_current_context restores the
                // thread's own afterwards).
                if unsafe { sys::cuCtxSetCurrent(a_ctx) } != sys::CUresult::CUDA_SUCCESS {
                    continue;
                }
                // SAFETY: b's context is retained by the caller; flags must be 0.
                let r = unsafe { sys::cuCtxEnablePeerAccess(b_ctx, 0) };
                if matches!(
                    r,
                    sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                ) {
                    enabled.insert(key);
                }
            }
        }
    });
}
