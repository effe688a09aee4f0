//! The sub-group built-ins (cl_khr_subgroups and the cl_khr_subgroup_* extensions): `subgroups.cl`,
//! compiled once per process by the in-process clang into bitcode, and linked into the programs
//! that call them before libclc (bridge/subgroups.cpp), as the image built-ins are.
use crate::pipeline::{failed, frontend, Ctx};
use crate::*;
use inkwell::module::Module;
use std::os::raw::c_char;
use std::sync::OnceLock;

/// The source of the sub-group built-ins (part of the cache key through cache.rs).
pub(crate) const SOURCE: &str = include_str!("subgroups.cl");

/// How subgroups.cl is compiled: OpenCL C 3.0 (for `memory_scope`), whatever the program's own
/// options; the mangled names are the same for every OpenCL C version.
const OPTIONS: &str = "-cl-std=CL3.0";

/// subgroups.cl as bitcode, compiled on first use (in a private context) and kept.
fn bitcode() -> Result<&'static [u8], BuildError> {
    static BITCODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    let r = BITCODE.get_or_init(|| {
        let opts = options::parse_build(OPTIONS).map_err(|e| e.to_string())?;
        let ctx = Ctx::private();
        let (m, _, _) = frontend(&ctx, SOURCE, &opts, &[]).map_err(|e| match e {
            BuildError::Failed { log } | BuildError::InvalidOptions { log } => log,
        })?;
        let bc = m.write_bitcode_to_memory().as_slice().to_vec();
        Ok(bc)
    });
    match r {
        Ok(bc) => Ok(bc.as_slice()),
        Err(log) => Err(failed(format!("internal error: the sub-group built-ins do not compile:\n{log}"))),
    }
}

/// Links the sub-group built-ins `m` calls; nothing to do for a program without any. Returns
/// whether there was something to do.
pub(crate) fn link(m: &Module) -> Result<bool, BuildError> {
    let mr = m.as_mut_ptr();
    // SAFETY: mr is the live module owned by `m`.
    if unsafe { ffi::pg_subgroups_used(mr) } == 0 {
        return Ok(false);
    }
    let bc = bitcode()?;
    let mut log: *mut c_char = std::ptr::null_mut();
    // SAFETY: mr is live; bc outlives the call (static); log is a local out-pointer.
    let rc = unsafe { ffi::pg_link_subgroups(mr, bc.as_ptr() as *const c_char, bc.len(), &mut log) };
    let log = ffi::take_string(log);
    if rc != 0 {
        return Err(failed(if log.is_empty() {
            "linking the sub-group built-ins failed".to_string()
        } else {
            log
        }));
    }
    Ok(true)
}
