//! The sub-group built-ins (cl_khr_subgroups and the cl_khr_subgroup_* extensions): `subgroups.cl`,
//! compiled once per process by the in-process clang into bitcode, and linked into the programs
//! that call them before libclc (bridge/subgroups.cpp), as the image built-ins are.
use crate::builtin_library::Library;
use crate::*;
use inkwell::module::Module;
use std::sync::OnceLock;

/// The source of the sub-group built-ins (part of the cache key through cache.rs).
pub(crate) const SOURCE: &str = include_str!("subgroups.cl");

/// How subgroups.cl is compiled: OpenCL C 3.0 (for `memory_scope`), whatever the program's own
/// options; the mangled names are the same for every OpenCL C version.
const OPTIONS: &str = "-cl-std=CL3.0";

/// The library (builtin_library.rs).
const LIBRARY: Library = Library {
    what: "sub-group built-ins",
    source: SOURCE,
    options: OPTIONS,
    used: ffi::pg_subgroups_used,
    link: ffi::pg_link_subgroups,
};

/// Links the sub-group built-ins `m` calls; nothing to do for a program without any. Returns
/// whether there was something to do.
pub(crate) fn link(m: &Module) -> Result<bool, BuildError> {
    static BITCODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    LIBRARY.link_into(m, &BITCODE)
}
