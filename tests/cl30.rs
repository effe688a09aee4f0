//! OpenCL 3.0 (tests/c/cl30.c): the numeric and with-version platform and device queries, every
//! optional feature answering as the 3.0 spec requires when absent (the Khronos CTS's
//! api/consistency_* checks), the 3.0 entry points, and OpenCL C 3.0 builds with the feature
//! macros the device reports. With the fake CUDA driver: runtime and compiler, not the GPU.
mod common;
use common::{c_program, run_ok, Driver, Via};

#[test]
fn platform_queries_without_a_device() {
    let out = run_ok(&c_program("cl30"), &["nodevice"], Via::Loader, Driver::Absent);
    assert!(out.contains("cl30: ") && out.contains(" 0 failed"), "{out}");
}

#[test]
fn opencl_3_0_with_a_fake_device_through_the_loader() {
    let out = run_ok(&c_program("cl30"), &[], Via::Loader, Driver::Fake);
    assert!(out.contains("cl30: ") && out.contains(" 0 failed"), "{out}");
}

#[test]
fn opencl_3_0_with_a_fake_device_through_ld_preload() {
    let out = run_ok(&c_program("cl30"), &[], Via::Preload, Driver::Fake);
    assert!(out.contains(" 0 failed"), "{out}");
}

/// On a machine with a CUDA GPU: the same program against the real driver.
#[test]
fn opencl_3_0_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("cl30"), &["gpu"], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed"), "{out}");
}
