//! How programs find cudacl: through the ICD loader, through LD_PRELOAD, with and without a CUDA
//! driver; clinfo (a client nobody here wrote) printing it; and the library exporting the OpenCL
//! names and nothing else.
mod common;
use common::{c_program, run, run_ok, Driver, Via};
use std::process::Command;

#[test]
fn loader_finds_the_platform_without_a_driver() {
    let out = run_ok(&c_program("platforms"), &[], Via::Loader, Driver::Absent);
    assert!(out.contains("platforms: 1"), "{out}");
    assert!(out.contains("platform: cudacl | OpenCL 3.0 cudacl "), "{out}");
    assert!(out.contains("cl_khr_icd"), "{out}");
    // No driver: the platform is listed, with no devices (CL_DEVICE_NOT_FOUND = -1).
    assert!(out.contains("devices: 0 (status -1)"), "{out}");
}

#[test]
fn ld_preload_finds_the_platform_with_no_loader_vendors() {
    let out = run_ok(&c_program("platforms"), &[], Via::Preload, Driver::Absent);
    assert!(out.contains("platforms: 1"), "{out}");
    assert!(out.contains("platform: cudacl"), "{out}");
}

#[test]
fn fake_driver_device_is_listed_through_loader_and_preload() {
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&c_program("platforms"), &[], via, Driver::Fake);
        assert!(out.contains("devices: 1 (status 0)"), "{via:?}: {out}");
        assert!(out.contains("device: Fake CUDA Device"), "{via:?}: {out}");
    }
}

fn clinfo(via: Via, driver: Driver) -> String {
    let mut cmd = Command::new("clinfo");
    match via {
        Via::Loader => cmd.env("OCL_ICD_VENDORS", common::icd_dir()),
        Via::Preload => cmd
            .env("LD_PRELOAD", common::library())
            .env("OCL_ICD_VENDORS", common::work_dir().join("no-vendors")),
    };
    match driver {
        Driver::Absent => cmd.env("CUDACL_DISABLE_CUDA", "1"),
        Driver::Fake => cmd.env("LD_LIBRARY_PATH", common::fake_cuda_dir()),
        Driver::System => &mut cmd,
    };
    let out = cmd.output().expect("clinfo must be installed (apt-get install clinfo)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "clinfo failed ({via:?}, {driver:?}): {:?}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn clinfo_prints_the_platform() {
    for via in [Via::Loader, Via::Preload] {
        let text = clinfo(via, Driver::Absent);
        assert!(text.contains("Platform Name                                   cudacl"), "{via:?}:\n{text}");
        assert!(text.contains("OpenCL 3.0 cudacl"), "{text}");
    }
}

#[test]
fn clinfo_prints_every_device_query_of_a_fake_device() {
    let text = clinfo(Via::Loader, Driver::Fake);
    for want in [
        "Device Name                                     Fake CUDA Device",
        "Device Version                                  OpenCL 3.0 cudacl",
        "cl_khr_fp64",
        "cl_khr_int64_base_atomics",
        "Max compute units",
        "Preferred work group size multiple (kernel)",
    ] {
        assert!(text.contains(want), "missing {want:?}:\n{text}");
    }
    assert!(!text.contains("Invalid value"), "a device query clinfo makes was refused:\n{text}");
}

/// Every function of the Khronos cl.h is exported under its own name, plus the ICD entry point;
/// nothing that is not an OpenCL name is exported.
#[test]
fn library_exports_the_opencl_names_and_nothing_else() {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(common::library())
        .output()
        .expect("nm (binutils)");
    let syms: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let header = std::fs::read_to_string("/usr/include/CL/cl.h").expect("opencl-c-headers");
    let mut wanted: Vec<String> = header
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("cl") && w.len() > 3 && w.as_bytes()[2].is_ascii_uppercase())
        .filter(|w| header.contains(&format!("{w}(")))
        .map(str::to_string)
        .collect();
    wanted.sort();
    wanted.dedup();
    assert!(wanted.len() >= 110, "parsed only {} names from cl.h", wanted.len());
    for name in &wanted {
        assert!(syms.contains(name), "{name} is not exported");
    }
    assert!(syms.iter().any(|s| s == "clIcdGetPlatformIDsKHR"));
    let foreign: Vec<&String> = syms.iter().filter(|s| !s.starts_with("cl")).collect();
    assert!(foreign.is_empty(), "non-OpenCL symbols exported: {foreign:?}");
}

#[test]
fn platforms_program_fails_cleanly_without_any_platform() {
    // Sanity of the harness itself: with no vendors and no preload, nothing is found.
    let exe = c_program("platforms");
    let out =
        Command::new(exe).env("OCL_ICD_VENDORS", common::work_dir().join("no-vendors")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("cudacl"), "{text}");
    let _ = run;
}
