//! The CUDA driver entry points cudacl calls, and the oldest driver they must work with.
//!
//! cudacl claims drivers back to CUDA 10.2 (JetPack 4.6). cudarc resolves each entry point the
//! first time it is called and panics when the driver lacks it, which would end the host program
//! in the middle of an OpenCL call (or in a destructor). So:
//! - every entry point cudacl calls through `sys::` is listed in [`REQUIRED`], and all of them
//!   exist in CUDA 10.2's libcuda (`tests/fakecuda/cuda-10.2.symbols`; a unit test checks that
//!   the source calls nothing else through `sys::`);
//! - `driver()` checks that the loaded driver exports every one before it reports any device,
//!   so a driver that lacks one gives a platform with no devices instead of a panic later;
//! - entry points newer than 10.2 are called only through [`optional`] lookups with a fallback
//!   (below: the primary context's release, `_v2` since CUDA 11.0).
use super::sys;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// Every `sys::cu*` function cudacl calls. All exist in CUDA 10.2.
pub const REQUIRED: &[&str] = &[
    "cuArray3DCreate_v2",
    "cuArrayDestroy",
    "cuCtxCreate_v2",
    "cuCtxDestroy_v2",
    "cuCtxEnablePeerAccess",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuDeviceCanAccessPeer",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetPCIBusId",
    "cuDevicePrimaryCtxRetain",
    "cuDeviceTotalMem_v2",
    "cuDriverGetVersion",
    "cuEventCreate",
    "cuEventDestroy_v2",
    "cuEventElapsedTime",
    "cuEventQuery",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuGetErrorName",
    "cuInit",
    "cuLaunchHostFunc",
    "cuLaunchKernel",
    "cuMemAllocManaged",
    "cuMemAlloc_v2",
    "cuMemFreeHost",
    "cuMemFree_v2",
    "cuMemGetInfo_v2",
    "cuMemHostAlloc",
    "cuMemHostGetDevicePointer_v2",
    "cuMemHostRegister_v2",
    "cuMemHostUnregister",
    "cuMemPrefetchAsync",
    "cuMemcpy3DAsync_v2",
    "cuMemcpy3DPeerAsync",
    "cuMemcpyAsync",
    "cuMemcpyDtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyPeerAsync",
    "cuMemsetD16Async",
    "cuMemsetD2D32Async",
    "cuMemsetD32Async",
    "cuMemsetD8Async",
    "cuModuleGetFunction",
    "cuModuleLoadDataEx",
    "cuModuleUnload",
    "cuPointerGetAttribute",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuSurfObjectCreate",
    "cuSurfObjectDestroy",
    "cuTexObjectCreate",
    "cuTexObjectDestroy",
];

/// The stream-ordered memory pool's entry points (CUDA 11.2+), looked up through [`optional`]
/// and used only where all exist (pool.rs; without them buffers come from cuMemAlloc).
pub const POOL: [&str; 4] =
    ["cuDeviceGetDefaultMemPool", "cuMemPoolSetAttribute", "cuMemAllocFromPoolAsync", "cuMemFreeAsync"];

/// CUDA graphs (cuda/graph.rs), looked up through [`optional`] and used only where all exist.
/// All are CUDA 10.2 entry points (cuGraphInstantiate_v2, CUDA 11.0, is tried before
/// cuGraphInstantiate: same signature).
pub const GRAPH: [&str; 7] = [
    "cuStreamBeginCapture_v2",
    "cuStreamEndCapture",
    "cuGraphInstantiate_v2",
    "cuGraphInstantiate",
    "cuGraphLaunch",
    "cuGraphExecDestroy",
    "cuGraphDestroy",
];

/// Preferred to the GRAPH instantiation entry points where the driver has it (CUDA 11.4+):
/// newer drivers keep the older names only for old binaries.
pub const GRAPH_INSTANTIATE_WITH_FLAGS: &str = "cuGraphInstantiateWithFlags";

/// Entry points called through [`optional`] lookups, each with its fallback: (newest, older).
pub const WITH_FALLBACK: &[(&str, &str)] = &[("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")];

/// The first of `names` the loaded driver exports (None without a driver).
///
/// # Safety
/// `F` must be the C signature of every name given.
pub unsafe fn optional<F: Copy>(names: &[&str]) -> Option<F> {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: culib() only opens the driver library (it panics without one: caught).
        let lib = unsafe { sys::culib() };
        // SAFETY: the caller guarantees that F is the C signature of every name.
        names.iter().find_map(|n| unsafe { lib.get::<F>(n.as_bytes()) }.ok().map(|s| *s))
    }))
    .ok()
    .flatten()
}

/// The names in [`REQUIRED`] the loaded driver does not export.
pub fn missing() -> Vec<&'static str> {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: only looks symbols up (as `*const ()`), calls nothing.
        let lib = unsafe { sys::culib() };
        REQUIRED
            .iter()
            .copied()
            // SAFETY: a symbol looked up as a plain address, never called.
            .filter(|n| unsafe { lib.get::<*const ()>(n.as_bytes()) }.is_err())
            .collect()
    }))
    .unwrap_or_else(|_| REQUIRED.to_vec())
}

/// Releases the device's primary context: `cuDevicePrimaryCtxRelease_v2` (CUDA 11.0+), else
/// `cuDevicePrimaryCtxRelease` (CUDA 10.2, JetPack 4.6).
pub fn primary_ctx_release(dev: sys::CUdevice) -> sys::CUresult {
    type F = unsafe extern "C" fn(sys::CUdevice) -> sys::CUresult;
    static RELEASE: OnceLock<Option<F>> = OnceLock::new();
    let (new, old) = WITH_FALLBACK[0];
    // SAFETY: both names have the signature CUresult(CUdevice).
    match *RELEASE.get_or_init(|| unsafe { optional::<F>(&[new, old]) }) {
        // SAFETY: a driver entry point with this signature.
        Some(f) => unsafe { f(dev) },
        None => sys::CUresult::CUDA_ERROR_NOT_FOUND,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    fn cuda_10_2() -> BTreeSet<String> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakecuda/cuda-10.2.symbols");
        std::fs::read_to_string(p)
            .expect("tests/fakecuda/cuda-10.2.symbols")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect()
    }

    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read src") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// Every driver entry point the source calls through cudarc is in REQUIRED, and REQUIRED and
    /// the fallbacks' older names all exist in CUDA 10.2.
    #[test]
    fn every_driver_call_exists_in_cuda_10_2() {
        let old = cuda_10_2();
        let required: BTreeSet<&str> = REQUIRED.iter().copied().collect();
        let mut files = Vec::new();
        rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let mut called = BTreeSet::new();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read source");
            for (i, _) in text.match_indices("sys::cu") {
                let name: String =
                    text[i + 5..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if text[i + 5 + name.len()..].starts_with('(') && name != "culib" {
                    called.insert((name, f.display().to_string()));
                }
            }
        }
        assert!(!called.is_empty(), "the scan found no driver calls");
        for (name, file) in &called {
            assert!(
                required.contains(name.as_str()),
                "{file} calls sys::{name}, which is not in cuda::symbols::REQUIRED: check it exists in \
                 CUDA 10.2 (JetPack 4.6) and list it, or look it up with cuda::symbols::optional and a fallback"
            );
        }
        for name in REQUIRED {
            assert!(old.contains(*name), "{name} is not a CUDA 10.2 entry point");
        }
        for name in POOL {
            assert!(!old.contains(name), "{name} exists in CUDA 10.2: call it directly");
        }
        assert!(
            !old.contains(GRAPH_INSTANTIATE_WITH_FLAGS),
            "cuGraphInstantiateWithFlags exists in CUDA 10.2"
        );
        for name in GRAPH {
            assert!(
                old.contains(name) || name == "cuGraphInstantiate_v2",
                "{name} is not a CUDA 10.2 entry point"
            );
        }
        for (new, fallback) in WITH_FALLBACK {
            assert!(!old.contains(*new), "{new} exists in CUDA 10.2: call it directly");
            assert!(old.contains(*fallback), "fallback {fallback} is not a CUDA 10.2 entry point");
        }
    }
}
