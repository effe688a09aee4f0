//! Helpers shared by the test files that build C programs with ompcl and compare them with gcc.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh work folder under the temporary directory.
pub fn work(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ompcl-test-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An OCL_ICD_VENDORS folder holding only PoCL.
pub fn icd_dir(w: &Path) -> PathBuf {
    let d = w.join("icd");
    std::fs::create_dir_all(&d).unwrap();
    let src = Path::new("/etc/OpenCL/vendors/pocl.icd");
    assert!(src.exists(), "PoCL is needed: apt-get install pocl-opencl-icd");
    std::fs::copy(src, d.join("pocl.icd")).unwrap();
    d
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd))
}

pub fn txt(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Token-by-token comparison; numbers with a '.' or an exponent within a relative `tol`.
pub fn same_numbers(a: &str, b: &str, tol: f64) -> Result<(), String> {
    let ta: Vec<&str> = a.split_whitespace().collect();
    let tb: Vec<&str> = b.split_whitespace().collect();
    if ta.len() != tb.len() {
        return Err(format!("{} tokens vs {}", ta.len(), tb.len()));
    }
    for (k, (x, y)) in ta.iter().zip(&tb).enumerate() {
        if x == y {
            continue;
        }
        let floaty = |s: &str| s.contains('.') || s.contains('e');
        let ok = match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(fx), Ok(fy)) if floaty(x) || floaty(y) => {
                (fx - fy).abs() <= tol * fx.abs().max(fy.abs()) || (fx - fy).abs() < 1e-9
            }
            _ => false,
        };
        if !ok {
            return Err(format!("token {k}: {x} vs {y}"));
        }
    }
    Ok(())
}

/// `ompcl ARGS`: (success, stderr).
pub fn ompcl(args: &[&str], cwd: &Path) -> (bool, String) {
    let o = run(Command::new(env!("CARGO_BIN_EXE_ompcl")).args(args).current_dir(cwd));
    (o.status.success(), txt(&o.stderr))
}

/// `gcc -O2 -fopenmp ARGS -lm`; panics on failure.
pub fn gcc(args: &[&str], cwd: &Path) {
    let o = run(Command::new("gcc").args(["-O2", "-fopenmp"]).args(args).arg("-lm").current_dir(cwd));
    assert!(o.status.success(), "gcc {args:?} failed:\n{}", txt(&o.stderr));
}

/// Run `exe` with `env`; (stdout, stderr), panics if it fails.
pub fn exec(exe: &Path, env: &[(&str, &str)]) -> (String, String) {
    let (out, err) = exec_bytes(exe, env);
    (txt(&out), err)
}

/// `exec` with stdout's bytes as they are (front.rs compares them byte for byte).
pub fn exec_bytes(exe: &Path, env: &[(&str, &str)]) -> (Vec<u8>, String) {
    let mut c = Command::new(exe);
    c.env_remove("OMPCL_DEVICE").env_remove("OMPCL_PROFILE").env("OMP_NUM_THREADS", "4");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = run(&mut c);
    assert!(o.status.success(), "{} failed ({}):\n{}", exe.display(), o.status, txt(&o.stderr));
    (o.stdout, txt(&o.stderr))
}

/// Where each region ran, from the OMPCL_PROFILE report: ("file:line", "opencl" | "cpu" | "opencl+cpu").
pub fn placements(stderr: &str) -> Vec<(String, String)> {
    stderr
        .lines()
        .filter(|l| l.starts_with("ompcl-profile:") && l.contains(" region "))
        .filter_map(|l| {
            let mut f = l.split(": ");
            let _ = f.next();
            let at = f.next()?.split_whitespace().next()?.to_string();
            let place = f.next()?.split_whitespace().next()?.to_string();
            Some((at, place))
        })
        .collect()
}

/// Only the program's own lines (the profile report removed).
pub fn program_lines(stderr: &str) -> String {
    stderr.lines().filter(|l| !l.starts_with("ompcl")).collect::<Vec<_>>().join("\n")
}
