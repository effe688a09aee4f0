//! Generates the OpenCL types, constants and the ICD dispatch table from the Khronos headers
//! (Debian's opencl-c-headers: /usr/include/CL), the way rusticl does. Only types and constants
//! are taken: the entry points themselves are defined by cudacl under their own names.
use std::env;
use std::path::PathBuf;

#[derive(Debug)]
struct ClConstantTypes;

impl bindgen::callbacks::ParseCallbacks for ClConstantTypes {
    /// Error codes and execution statuses are cl_int; the rest stays unsigned.
    fn int_macro(&self, name: &str, value: i64) -> Option<bindgen::callbacks::IntKind> {
        const STATUS: [&str; 5] = ["CL_SUCCESS", "CL_COMPLETE", "CL_RUNNING", "CL_SUBMITTED", "CL_QUEUED"];
        if STATUS.contains(&name) || value < 0 {
            Some(bindgen::callbacks::IntKind::I32)
        } else {
            None
        }
    }
}

fn main() {
    // The library exports the OpenCL names and is also loaded beside an ICD loader that exports
    // the same names: bind our own references (the dispatch table's) to our own definitions, or
    // the table would point back into the loader.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    let include = env::var("CUDACL_CL_INCLUDE").unwrap_or_else(|_| "/usr/include".into());
    println!("cargo:rerun-if-changed=src/cl/wrapper.h");
    println!("cargo:rerun-if-env-changed=CUDACL_CL_INCLUDE");
    let bindings = bindgen::Builder::default()
        .header("src/cl/wrapper.h")
        .clang_arg(format!("-I{include}"))
        .clang_arg("-DCL_TARGET_OPENCL_VERSION=300")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_1_0_APIS")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_1_1_APIS")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_1_2_APIS")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_2_0_APIS")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_2_1_APIS")
        .clang_arg("-DCL_USE_DEPRECATED_OPENCL_2_2_APIS")
        .allowlist_type("cl_.*|_cl_.*")
        .allowlist_var("CL_.*")
        .blocklist_function(".*")
        .parse_callbacks(Box::new(ClConstantTypes))
        .layout_tests(false)
        .derive_default(false)
        .generate()
        .unwrap_or_else(|e| {
            panic!("bindgen over the Khronos OpenCL headers failed ({e}); install opencl-c-headers")
        });
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    bindings.write_to_file(out.join("cl_bindings.rs")).expect("write cl_bindings.rs");
}
