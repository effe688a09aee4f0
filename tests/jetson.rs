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
    // a fake driver: staging checked from the first large transfer (as tests/common's Driver::Fake)
    let mut all = vec![("LD_LIBRARY_PATH", dir.to_str().unwrap()), ("CUDACL_STAGING_AFTER", "0")];
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

fn run_fake(name: &str, env: &[(&str, &str)]) -> (bool, String) {
    let out = run(&c_program(name), &[], Via::Loader, Driver::Fake, env);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    (out.status.success() && !text.contains("FAIL"), text)
}

/// `CUDACL_FORCE_INTEGRATED=1` makes a discrete device integrated (zero-copy host-backed
/// buffers, maps that copy nothing: buffers.c checks it on integrated devices), alone and with
/// `CUDACL_NO_HOST_REGISTER=1` (Tegra before Xavier: the copy-based USE_HOST_PTR fallback).
#[test]
fn fake_driver_force_integrated_and_no_host_register() {
    let (ok, text) = run_fake("buffers", &[("CUDACL_FORCE_INTEGRATED", "1")]);
    assert!(ok && text.contains(", integrated"), "{text}");
    let (ok, text) = run_fake("buffers", &[]);
    assert!(ok && !text.contains(", integrated"), "{text}");
    let (ok, text) =
        run_fake("buffers", &[("CUDACL_FORCE_INTEGRATED", "1"), ("CUDACL_NO_HOST_REGISTER", "1")]);
    assert!(ok && text.contains(", integrated"), "{text}");
}

/// `CUDACL_TARGET` decides the PTX the driver is given (the fake refuses PTX without the
/// expected `.target`/`.version`), for each Jetson target.
#[test]
fn fake_driver_cudacl_target() {
    for (target, sm, ver) in [
        ("sm_53:6.5", "sm_53", "6.5"),
        ("sm_62:6.5", "sm_62", "6.5"),
        ("sm_72:7.4", "sm_72", "7.4"),
        ("sm_87:7.4", "sm_87", "7.4"),
        ("sm_87:8.2", "sm_87", "8.2"),
    ] {
        let expect = format!(".target {sm};.version {ver}");
        let (ok, text) = run_fake(
            "kernel_api",
            &[("CUDACL_TARGET", target), ("FAKECUDA_EXPECT_PTX", &expect), ("CUDACL_CACHE", "0")],
        );
        assert!(ok, "CUDACL_TARGET={target}: {text}");
    }
    // Without it the fake's sm_90 device gets sm_90 PTX, which the expectation refuses.
    let (ok, _) = run_fake("kernel_api", &[("FAKECUDA_EXPECT_PTX", ".target sm_53"), ("CUDACL_CACHE", "0")]);
    assert!(!ok, "the PTX expectation must be able to fail");
}

/// OpenCL 3.0 and cl_khr_fp16 on each Jetson target: the 3.0 queries and OpenCL C 3.0 builds
/// (cl30.c, with the C11 atomics) and every cl_khr_fp16 program (fp16.c, built: the fake runs no
/// kernel) give the driver PTX for that target; on the CUDA 10.2 driver too.
#[test]
fn opencl_3_0_and_fp16_on_jetson_targets() {
    for (target, sm) in
        [("sm_53:6.5", "sm_53"), ("sm_62:6.5", "sm_62"), ("sm_72:7.4", "sm_72"), ("sm_87:7.4", "sm_87")]
    {
        let expect = format!(".target {sm}");
        let env =
            [("CUDACL_TARGET", target), ("FAKECUDA_EXPECT_PTX", expect.as_str()), ("CUDACL_CACHE", "0")];
        for (name, args) in [("cl30", &[][..]), ("fp16", &["build"][..])] {
            let out = run(&c_program(name), args, Via::Loader, Driver::Fake, &env);
            let text =
                format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            println!("{text}");
            assert!(out.status.success() && text.contains(" 0 failed"), "{name} on {target}: {text}");
        }
    }
    let text = run_on_10_2("cl30", &[], &[]);
    assert!(text.contains(" 0 failed"), "{text}");
    let text = run_on_10_2("fp16", &["build"], &[]);
    assert!(text.contains(" 0 failed") && text.contains("PASS"), "{text}");
}
