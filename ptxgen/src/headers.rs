//! clang's OpenCL headers, embedded at build time (from LLVM 19's resource directory) and
//! served to the front end from an in-memory file system: nothing of clang is needed at run time.
//! With -fdeclare-opencl-builtins, -finclude-default-header includes only opencl-c-base.h.
pub const RESOURCE_INCLUDE: &str = "/cudacl/clang/include";
pub const USER_HEADERS: &str = "/cudacl/headers";
pub const EMBEDDED: &[(&str, &str)] =
    &[("opencl-c-base.h", include_str!(concat!(env!("PTXGEN_CLANG_INCLUDE"), "/opencl-c-base.h")))];
