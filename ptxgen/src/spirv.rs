//! SPIR-V input (clCreateProgramWithIL): the SPIRV-LLVM-Translator's `llvm-spirv` binary, run
//! as a subprocess, turns an OpenCL SPIR-V module back into LLVM bitcode (`-r`), which LLVM 19
//! reads (bitcode is upward compatible) and `pg_import_spirv` (bridge/spirv.cpp) makes into
//! what clang's nvptx output would have been.
//!
//! Why a subprocess: the translator's library (Debian's libLLVMSPIRVLib.so.15) is built against
//! the shared LLVM 15, and ptxgen links LLVM 19 statically: both in one process clash symbol by
//! symbol. The binary needs nothing from us and exchanges files only.
//!
//! Where it is looked for, first found wins: `$CUDACL_LLVM_SPIRV` (a path; set and empty: no
//! translator, i.e. no IL support), `llvm-spirv` then `llvm-spirv-N` on `PATH`, then
//! `/usr/lib/llvm-N/bin/llvm-spirv`, for N = 15 (Debian 12's), then 19 down to 14: a
//! translator's bitcode is that of its LLVM, which LLVM 19 reads up to 19 (Ubuntu 22.04, on
//! JetPack 6, has llvm-spirv-14 and -15).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::spec_constants::{self, SpecConstant};

/// The SPIR-V versions the translator reads (Debian's SPIRV-LLVM-Translator 15 reads 1.0-1.4),
/// reported by the runtime as CL_DEVICE_IL_VERSION / CL_DEVICE_ILS_WITH_VERSION.
pub const SPIRV_VERSIONS: &[(u32, u32)] = &[(1, 0), (1, 1), (1, 2), (1, 3), (1, 4)];

/// The translator's binary, or None: then the runtime reports no IL support. Looked for once
/// per process.
pub fn translator() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(locate).as_deref()
}

fn locate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUDACL_LLVM_SPIRV") {
        let p = PathBuf::from(p);
        return (!p.as_os_str().is_empty() && p.is_file()).then_some(p);
    }
    const VERSIONS: [u32; 6] = [15, 19, 18, 17, 16, 14];
    let names: Vec<String> = std::iter::once("llvm-spirv".to_string())
        .chain(VERSIONS.iter().map(|v| format!("llvm-spirv-{v}")))
        .collect();
    let dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let on_path = dirs.iter().flat_map(|d| names.iter().map(move |n| d.join(n)));
    let llvm_dirs = VERSIONS.iter().map(|v| PathBuf::from(format!("/usr/lib/llvm-{v}/bin/llvm-spirv")));
    on_path.chain(llvm_dirs).find(|p| p.is_file())
}

/// What identifies the translator in cache keys: its path, size and modification time (another
/// translator may translate the same SPIR-V differently).
pub fn translator_id() -> String {
    match translator() {
        None => "none".into(),
        Some(p) => {
            let meta = std::fs::metadata(p).ok();
            let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
            let mtime = meta
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{}:{size}:{mtime}", p.display())
        }
    }
}

/// SPIR-V -> LLVM bitcode (the translator's LLVM version), with the specialization constants
/// set (spec_constants.rs). Err: the log (the translator's own message when it refused the
/// module).
pub fn to_bitcode(il: &[u8], spec: &[SpecConstant]) -> Result<Vec<u8>, String> {
    if il.len() < 20 || il[..4] != [0x03, 0x02, 0x23, 0x07] {
        return Err("error: the program's IL is not a SPIR-V module (no SPIR-V magic number)\n".into());
    }
    let il = spec_constants::apply(il, spec)?;
    run(&il)
}

/// Runs `llvm-spirv -r` on `il` (written to a temporary file: it reads no standard input) and
/// returns the bitcode it wrote.
fn run(il: &[u8]) -> Result<Vec<u8>, String> {
    let exe = translator().ok_or_else(|| {
        "error: no SPIR-V translator (llvm-spirv) was found: set CUDACL_LLVM_SPIRV or install llvm-spirv-15\n"
            .to_string()
    })?;
    let dir = TempDir::new().map_err(|e| format!("error: cannot make a temporary folder: {e}\n"))?;
    let input = dir.0.join("in.spv");
    let out = dir.0.join("out.bc");
    std::fs::write(&input, il).map_err(|e| format!("error: cannot write {}: {e}\n", input.display()))?;
    let mut cmd = Command::new(exe);
    // OpenCL 2.0's built-ins, not 1.2's (the default): C11 atomics keep their memory order and
    // scope (1.2's atomic_* have none: an acquire/release exchange would become relaxed).
    cmd.arg("-r").arg("--spirv-target-env=CL2.0").arg(&input).arg("-o").arg(&out);
    let res = cmd.output().map_err(|e| format!("error: cannot run {}: {e}\n", exe.display()))?;
    if !res.status.success() {
        let msg = String::from_utf8_lossy(&res.stderr);
        let msg = if msg.trim().is_empty() { String::from_utf8_lossy(&res.stdout) } else { msg };
        return Err(format!(
            "error: the SPIR-V translator ({}) rejected the module: {}\n",
            exe.display(),
            msg.trim()
        ));
    }
    std::fs::read(&out).map_err(|e| format!("error: the SPIR-V translator wrote no output: {e}\n"))
}

/// A folder of its own under the temporary directory, removed with everything in it on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let base = std::env::temp_dir();
        let p = base.join(format!("cudacl-spirv-{}-{n}", std::process::id()));
        // A folder left by an earlier process of the same pid: take it over.
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_spirv_is_refused_before_the_translator() {
        let e = to_bitcode(b"__kernel void k() {}", &[]).unwrap_err();
        assert!(e.contains("not a SPIR-V module"), "{e}");
    }
}
