//! The C++ bridge (bridge/, its files listed in bridge/bridge.h).
use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};
use std::os::raw::{c_char, c_int};

extern "C" {
    pub fn pg_init() -> c_int;
    pub fn pg_free(p: *mut c_char);
    pub fn pg_context_setup(c: LLVMContextRef);
    pub fn pg_context_teardown(c: LLVMContextRef);
    pub fn pg_context_take_log(c: LLVMContextRef, had_error: *mut c_int) -> *mut c_char;
    pub fn pg_compile(
        c: LLVMContextRef,
        src: *const c_char,
        srclen: usize,
        args: *const *const c_char,
        nargs: c_int,
        file_names: *const *const c_char,
        file_data: *const *const c_char,
        file_lens: *const usize,
        nfiles: c_int,
        out: *mut LLVMModuleRef,
        log: *mut *mut c_char,
        deps: *mut *mut c_char,
    ) -> c_int;
    pub fn pg_import_spirv(
        c: LLVMContextRef,
        bc: *const c_char,
        len: usize,
        out: *mut LLVMModuleRef,
        log: *mut *mut c_char,
    ) -> c_int;
    pub fn pg_lower(m: LLVMModuleRef, log: *mut *mut c_char) -> c_int;
    pub fn pg_images_used(m: LLVMModuleRef) -> c_int;
    pub fn pg_define_half(m: LLVMModuleRef, sm: c_int) -> c_int;
    pub fn pg_link_images(m: LLVMModuleRef, bc: *const c_char, len: usize, log: *mut *mut c_char) -> c_int;
    pub fn pg_mathlib_used(m: LLVMModuleRef) -> c_int;
    pub fn pg_link_mathlib(m: LLVMModuleRef, bc: *const c_char, len: usize, log: *mut *mut c_char) -> c_int;
    pub fn pg_subgroups_used(m: LLVMModuleRef) -> c_int;
    pub fn pg_link_subgroups(m: LLVMModuleRef, bc: *const c_char, len: usize, log: *mut *mut c_char)
        -> c_int;
    pub fn pg_link_libclc(m: LLVMModuleRef, path: *const c_char, log: *mut *mut c_char) -> c_int;
    pub fn pg_shared_acquire(path: *const c_char, log: *mut *mut c_char) -> LLVMContextRef;
    pub fn pg_shared_reset();
    pub fn pg_link_modules(dst: LLVMModuleRef, src: LLVMModuleRef, log: *mut *mut c_char) -> c_int;
    pub fn pg_split_weights(m: LLVMModuleRef, weights: *mut i64, count: c_int) -> c_int;
    pub fn pg_split_part(
        m: LLVMModuleRef,
        part: c_int,
        kernels: *const c_int,
        count: c_int,
        log: *mut *mut c_char,
    ) -> LLVMModuleRef;
    pub fn pg_set_llvm_options(args: *const *const c_char, count: c_int, log: *mut *mut c_char) -> c_int;
    pub fn pg_optimize(
        m: LLVMModuleRef,
        sm: c_int,
        ptx: c_int,
        opt: c_int,
        fast_fma: c_int,
        log: *mut *mut c_char,
    ) -> c_int;
    pub fn pg_codegen(
        m: LLVMModuleRef,
        sm: c_int,
        ptx: c_int,
        opt: c_int,
        fast_fma: c_int,
        ptx_out: *mut *mut c_char,
        log: *mut *mut c_char,
    ) -> c_int;
}

/// Takes a malloc'd C string from the bridge (NULL -> "").
pub fn take_string(p: *mut c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the bridge returns NUL-terminated malloc'd strings; freed right after the copy.
    let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned();
    // SAFETY: p was allocated by the bridge and is freed once, here.
    unsafe { pg_free(p) };
    s
}
