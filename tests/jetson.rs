//! Jetson support that can be checked without a Jetson (issue 10).
//!
//! The oldest driver cudacl claims is CUDA 10.2 (JetPack 4.6). These tests run the buffer and
//! kernel-API programs against tests/fakecuda built as a CUDA 10.2 driver (-DFAKECUDA_CUDA_10_2:
//! it exports only 10.2's entry points, cuda-10.2.symbols), where a call to an entry point the
//! driver lacks (e.g. cuDevicePrimaryCtxRelease_v2, CUDA 11.0) would end the program through
//! cudarc's missing-symbol panic. FAKE driver: runtime logic only, not a GPU test.
mod common;
use common::{c_program, fake_cuda_10_2_dir, repo, run, Driver, Via};
use std::collections::BTreeSet;
use std::process::Command;

fn cuda_10_2_symbols() -> BTreeSet<String> {
    std::fs::read_to_string(repo().join("tests/fakecuda/cuda-10.2.symbols"))
        .expect("cuda-10.2.symbols")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The 10.2 fake exports CUDA 10.2's entry points and nothing newer.
#[test]
fn fake_cuda_10_2_exports_only_cuda_10_2_symbols() {
    let so = fake_cuda_10_2_dir().join("libcuda.so.1");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&so).output().expect("nm (binutils)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let exported: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|n| n.starts_with("cu"))
        .map(String::from)
        .collect();
    assert!(exported.contains("cuDevicePrimaryCtxRelease"), "{exported:?}");
    assert!(!exported.contains("cuDevicePrimaryCtxRelease_v2"), "{exported:?}");
    let old = cuda_10_2_symbols();
    let newer: Vec<_> = exported.difference(&old).collect();
    assert!(newer.is_empty(), "the 10.2 fake exports entry points CUDA 10.2 does not have: {newer:?}");
}

fn run_on_10_2(name: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let dir = fake_cuda_10_2_dir();
    let mut all = vec![("LD_LIBRARY_PATH", dir.to_str().unwrap())];
    all.extend_from_slice(env);
    let out = run(&c_program(name), args, Via::Preload, Driver::System, &all);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(
        out.status.success(),
        "{name} on the CUDA 10.2 fake driver ({env:?}) failed: {:?}\n{text}",
        out.status
    );
    assert!(!text.contains("panicked") && !text.contains("Missing symbol"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    text
}

/// The device is listed: cudacl accepts a 10.2 driver (every entry point it needs is there).
#[test]
fn fake_cuda_10_2_device_is_listed() {
    let text = run_on_10_2("platforms", &[], &[]);
    assert!(text.contains("devices: 1 (status 0)"), "{text}");
}

/// Buffers (every flag, map/unmap, sub-buffers...) and the kernel API, with contexts created and
/// released (the primary context's release is the entry point that changed in CUDA 11.0), as a
/// discrete GPU and as a Jetson Nano/TX2 (integrated, no cuMemHostRegister).
#[test]
fn fake_cuda_10_2_buffers_and_kernels() {
    for env in [&[][..], &[("FAKECUDA_INTEGRATED", "1"), ("FAKECUDA_NO_HOST_REGISTER", "1")][..]] {
        let text = run_on_10_2("buffers", &[], env);
        assert!(text.contains("buffers: ") && text.contains(" 0 failed"), "{text}");
        run_on_10_2("kernel_api", &[], env);
    }
}
