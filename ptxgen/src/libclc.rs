//! Finding libclc's nvptx64--nvidiacl.bc. The bridge maps it once per process and parses it
//! lazily (only the functions a kernel uses are materialised).
//!
//! Search order: $CUDACL_LIBCLC (a file), `clc/nvptx64--nvidiacl.bc` beside the shared object or
//! executable that contains ptxgen, /usr/lib/clc/, /usr/share/clc/.
use std::ffi::{c_void, CStr};
use std::os::raw::{c_char, c_int};
use std::path::PathBuf;
use std::sync::OnceLock;

pub const FILE: &str = "nvptx64--nvidiacl.bc";

#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}
extern "C" {
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The file (shared object or executable) this code was loaded from.
pub fn own_object_path() -> Option<PathBuf> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let addr = own_object_path as *const c_void;
    // SAFETY: dladdr only reads the address and fills `info`.
    let ok = unsafe { dladdr(addr, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the dynamic loader.
    let s = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    let p = PathBuf::from(s);
    if p.is_absolute() {
        Some(p)
    } else {
        std::env::current_exe().ok()
    }
}

/// The candidates, in search order.
pub fn candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(p) = std::env::var_os("CUDACL_LIBCLC") {
        if !p.is_empty() {
            v.push(PathBuf::from(p));
            return v;
        }
    }
    if let Some(obj) = own_object_path() {
        if let Some(dir) = obj.parent() {
            v.push(dir.join("clc").join(FILE));
        }
    }
    v.push(PathBuf::from("/usr/lib/clc").join(FILE));
    v.push(PathBuf::from("/usr/share/clc").join(FILE));
    v
}

/// Where libclc is, and a cheap identity (path, size, mtime) for cache keys. No file is read.
pub fn locate() -> Result<(PathBuf, String), String> {
    let c = candidates();
    for p in &c {
        if let Ok(md) = std::fs::metadata(p) {
            if md.is_file() {
                let mtime = md
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                let id = format!("{}:{}:{}", p.display(), md.len(), mtime);
                return Ok((p.clone(), id));
            }
        }
    }
    let list: Vec<String> = c.iter().map(|p| format!("  {}", p.display())).collect();
    Err(format!(
        "error: libclc ({FILE}) not found; looked at:\n{}\n(install Debian's libclc-19, or set CUDACL_LIBCLC to the file)\n",
        list.join("\n")
    ))
}

/// The libclc file to use, found once per process (the C++ bridge maps it and parses it lazily).
pub fn get() -> Result<PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| locate().map(|(p, _)| p)).clone()
}
