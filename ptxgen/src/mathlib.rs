//! Float exp, exp2, exp10, log, log2, log10, sin, cos, pow, powr, tan, atan, atan2, asin, acos,
//! tanh, sinh, cosh, log1p, expm1, cbrt, erf and erfc in place of libclc's (mathlib.cl says why and how
//! precise): compiled once per process by the in-process clang into bitcode, and linked into the
//! programs that call them before libclc (bridge/mathlib.cpp), as the image built-ins are.
use crate::builtin_library::Library;
use crate::*;
use inkwell::module::Module;
use std::sync::OnceLock;

/// The source (part of the cache key through cache.rs).
pub(crate) const SOURCE: &str = include_str!("mathlib.cl");

/// The library (builtin_library.rs); OpenCL C 1.2 is enough for it.
const LIBRARY: Library = Library {
    what: "math built-ins",
    source: SOURCE,
    options: "-cl-std=CL1.2",
    used: ffi::pg_mathlib_used,
    link: ffi::pg_link_mathlib,
};

/// Links the functions of mathlib.cl that `m` calls; nothing to do for a program calling none.
/// Returns whether there was something to do.
pub(crate) fn link(m: &Module) -> Result<bool, BuildError> {
    static BITCODE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    LIBRARY.link_into(m, &BITCODE)
}
