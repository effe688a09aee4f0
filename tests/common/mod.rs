//! The integration-test harness: builds C host programs against the system's OpenCL ICD loader
//! (ocl-icd) and runs them against the libcudacl.so that cargo just built, either through the
//! loader (OCL_ICD_VENDORS pointing at a folder holding one cudacl.icd) or with LD_PRELOAD and no
//! loader in the way. Optionally with the fake CUDA driver (tests/fakecuda) first on the library
//! path: that exercises the runtime's logic on machines without a GPU; it is not a GPU test.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>/ : the test binary lives in its deps/ folder.
fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf()
}

/// The cdylib cargo built with this test binary: `cargo test` leaves it in deps/ (it is copied
/// up to target/<profile>/ only by `cargo build`), so deps/ is the fresh one.
pub fn library() -> PathBuf {
    let dir = target_profile_dir();
    let lib = [dir.join("deps/libcudacl.so"), dir.join("libcudacl.so")]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| {
            panic!("libcudacl.so not built under {} (cargo test -p cudacl builds it)", dir.display())
        });
    lib
}

/// A scratch folder for what the tests build.
pub fn work_dir() -> PathBuf {
    let d = target_profile_dir().join("cudacl-tests");
    std::fs::create_dir_all(&d).expect("create test work dir");
    d
}

/// A folder holding one .icd file that names libcudacl.so: what OCL_ICD_VENDORS points at.
pub fn icd_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = work_dir().join("vendors");
        std::fs::create_dir_all(&d).expect("create vendors dir");
        std::fs::write(d.join("cudacl.icd"), format!("{}\n", library().display())).expect("write cudacl.icd");
        d
    })
    .clone()
}

fn cc(args: &[&str]) {
    let out = Command::new("cc").args(args).output().expect("run cc");
    assert!(out.status.success(), "cc {:?} failed:\n{}", args, String::from_utf8_lossy(&out.stderr));
}

/// Compiles tests/c/<name>.c (with tests/c/common.h) into an executable linked to libOpenCL,
/// once per test process (tests run in parallel threads and may ask for the same program).
pub fn c_program(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let exe = work_dir().join(format!("{name}-{}", std::process::id()));
    if built.iter().any(|b| b == name) {
        return exe;
    }
    let src = repo().join("tests/c").join(format!("{name}.c"));
    let inc = repo().join("tests/c");
    cc(&[
        "-O1",
        "-g",
        "-Wall",
        "-Werror=implicit-function-declaration",
        "-DCL_TARGET_OPENCL_VERSION=300",
        "-DCL_USE_DEPRECATED_OPENCL_1_0_APIS",
        "-DCL_USE_DEPRECATED_OPENCL_1_1_APIS",
        "-DCL_USE_DEPRECATED_OPENCL_1_2_APIS",
        "-I",
        inc.to_str().unwrap(),
        src.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "-lOpenCL",
        "-lm",
        "-lpthread",
    ]);
    built.push(name.to_string());
    exe
}

/// Builds tests/fakecuda into `work_dir()/<folder>` (libcuda.so.1 and a libcuda.so copy) with
/// the extra compiler flags given.
fn build_fake_cuda(folder: &str, flags: &[&str]) -> PathBuf {
    let d = work_dir().join(folder);
    std::fs::create_dir_all(&d).expect("create fakecuda dir");
    let so = d.join("libcuda.so.1");
    let src = repo().join("tests/fakecuda/fakecuda.c");
    let mut args = vec!["-shared", "-fPIC", "-O1", "-g"];
    args.extend_from_slice(flags);
    args.extend([src.to_str().unwrap(), "-o", so.to_str().unwrap(), "-lpthread"]);
    cc(&args);
    let link = d.join("libcuda.so");
    let _ = std::fs::remove_file(&link);
    std::fs::copy(&so, &link).expect("copy libcuda.so");
    d
}

/// The fake CUDA driver, built once: a folder with libcuda.so and libcuda.so.1.
pub fn fake_cuda_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_fake_cuda("fakecuda", &[])).clone()
}

/// tests/fakecuda built as a CUDA 10.2 driver (JetPack 4.6: -DFAKECUDA_CUDA_10_2): a folder with
/// libcuda.so and libcuda.so.1 that export only CUDA 10.2's entry points. Use it with
/// `Driver::System` and `("LD_LIBRARY_PATH", dir)` in the environment.
pub fn fake_cuda_10_2_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_fake_cuda("fakecuda-10.2", &["-DFAKECUDA_CUDA_10_2"])).clone()
}

/// How a program reaches cudacl.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Via {
    /// Through ocl-icd with OCL_ICD_VENDORS naming only cudacl.
    Loader,
    /// LD_PRELOAD=libcudacl.so, the loader given no vendors at all.
    Preload,
}

/// Which CUDA driver the runtime finds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Driver {
    /// None at all (CUDACL_DISABLE_CUDA=1): the platform has no devices.
    Absent,
    /// tests/fakecuda, one fake sm_90 device.
    Fake,
    /// Whatever the machine has (a real GPU, or nothing).
    System,
}

pub fn run(exe: &Path, args: &[&str], via: Via, driver: Driver, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    match via {
        Via::Loader => {
            cmd.env("OCL_ICD_VENDORS", icd_dir());
        }
        Via::Preload => {
            cmd.env("LD_PRELOAD", library());
            cmd.env("OCL_ICD_VENDORS", work_dir().join("no-vendors"));
        }
    }
    match driver {
        Driver::Absent => {
            cmd.env("CUDACL_DISABLE_CUDA", "1");
        }
        Driver::Fake => {
            cmd.env("LD_LIBRARY_PATH", fake_cuda_dir());
            // the C programs check, through the fake driver's counters, that large pageable
            // transfers take the staging pipeline: from the first one (a test's own env may
            // override this; cudacl's default waits for 256 MiB of such transfers)
            cmd.env("CUDACL_STAGING_AFTER", "0");
        }
        Driver::System => {}
    }
    // Profiling helpers and caches must not leak between tests.
    cmd.env("CUDACL_CACHE_DIR", work_dir().join("cache"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run test program")
}

/// Runs and asserts success, echoing the program's output (cargo shows it on failure).
pub fn run_ok(exe: &Path, args: &[&str], via: Via, driver: Driver) -> String {
    let out = run(exe, args, via, driver, &[]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(out.status.success(), "{} ({via:?}, {driver:?}) failed: {:?}\n{text}", exe.display(), out.status);
    text
}

/// True when a real CUDA GPU is usable here. Tests that need one print the line
/// "skipped: no CUDA device" and return early otherwise.
pub fn has_cuda_gpu() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        // Ask the runtime itself, through the loader: a device listed means a usable driver.
        let probe = c_program("probe_gpu");
        run(&probe, &[], Via::Loader, Driver::System, &[]).status.success()
    })
}

#[macro_export]
macro_rules! require_gpu {
    () => {
        if !common::has_cuda_gpu() {
            // Written to the process's stderr directly: libtest captures println!/eprintln! of
            // passing tests, and the skip must be visible in CI's output.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: no CUDA device ({})", module_path!());
            return;
        }
    };
}
