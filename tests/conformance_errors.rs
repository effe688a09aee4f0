//! The table-driven error-code test (tests/c/errors.c): every entry point with NULL, garbage,
//! wrong-kind and released handles and bad arguments, against the OpenCL 1.2 spec's codes.
mod common;
use common::{c_program, run_ok, Driver, Via};

#[test]
fn error_codes_without_a_device() {
    let exe = c_program("errors");
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&exe, &["nodevice"], via, Driver::Absent);
        assert!(out.contains(" 0 failed"), "{out}");
    }
}

/// With the fake CUDA driver (a CPU stand-in, tests/fakecuda): runtime logic, not the GPU.
#[test]
fn error_codes_with_a_fake_device_through_ld_preload() {
    let out = run_ok(&c_program("errors"), &["full"], Via::Preload, Driver::Fake);
    assert!(out.contains(" 0 failed"), "{out}");
}

#[test]
fn error_codes_with_a_fake_device_through_the_loader() {
    let out = run_ok(&c_program("errors"), &["loader"], Via::Loader, Driver::Fake);
    assert!(out.contains(" 0 failed"), "{out}");
}
