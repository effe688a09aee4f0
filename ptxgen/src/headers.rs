//! clang's OpenCL headers, embedded at build time (from LLVM 19's resource directory) and
//! served to the front end from an in-memory file system: nothing of clang is needed at run time.
//! With -fdeclare-opencl-builtins, -finclude-default-header includes only opencl-c-base.h.
pub const RESOURCE_INCLUDE: &str = "/cudacl/clang/include";
pub const USER_HEADERS: &str = "/cudacl/headers";
pub const EMBEDDED: &[(&str, &str)] =
    &[("opencl-c-base.h", include_str!(concat!(env!("PTXGEN_CLANG_INCLUDE"), "/opencl-c-base.h")))];

/// `ctz` (OpenCL C 2.0's count-trailing-zeros), offered to OpenCL C 1.x programs that call it
/// (the CTS's integer_ctz runs on 1.2 devices too): included (`-include`) only when the source
/// names `ctz`, so that other programs are free to define a function of that name.
pub const CTZ: (&str, &str) = (
    "cudacl-ctz.h",
    r#"#define __CUDACL_CTZ(S, U) \
  static inline __attribute__((overloadable, always_inline)) U ctz(U x) { return popcount((U)(~x & (x - (U)1))); } \
  static inline __attribute__((overloadable, always_inline)) S ctz(S x) { return as_##S(ctz(as_##U(x))); }
#define __CUDACL_CTZ_ALL(S, U) __CUDACL_CTZ(S, U) __CUDACL_CTZ(S##2, U##2) __CUDACL_CTZ(S##3, U##3) \
  __CUDACL_CTZ(S##4, U##4) __CUDACL_CTZ(S##8, U##8) __CUDACL_CTZ(S##16, U##16)
__CUDACL_CTZ_ALL(char, uchar)
__CUDACL_CTZ_ALL(short, ushort)
__CUDACL_CTZ_ALL(int, uint)
__CUDACL_CTZ_ALL(long, ulong)
#undef __CUDACL_CTZ_ALL
#undef __CUDACL_CTZ
"#,
);

/// cl_khr_subgroup_rotate's built-ins, which clang 19 does not declare (neither its builtin
/// table nor opencl-c-base.h has them): declared for every program (`-include`; defined by
/// subgroups.cl). Half and double overloads where their extensions are on, the pragma put back
/// after, so a program still enables cl_khr_fp16 itself.
pub const ROTATE: (&str, &str) = (
    "cudacl-subgroup-rotate.h",
    r#"#define __CUDACL_ROT(T) T __attribute__((overloadable)) sub_group_rotate(T, int); \
  T __attribute__((overloadable)) sub_group_clustered_rotate(T, int, uint);
__CUDACL_ROT(char) __CUDACL_ROT(uchar) __CUDACL_ROT(short) __CUDACL_ROT(ushort) __CUDACL_ROT(int)
__CUDACL_ROT(uint) __CUDACL_ROT(long) __CUDACL_ROT(ulong) __CUDACL_ROT(float)
#ifdef cl_khr_fp64
__CUDACL_ROT(double)
#endif
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__CUDACL_ROT(half)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
#undef __CUDACL_ROT
"#,
);
