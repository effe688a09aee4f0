//! cl_khr_fp16 (tests/c/fp16.c): the queries and every build of the self-checking program on the
//! fake CUDA driver (which runs no kernel), and the whole program, with its results checked
//! against exact host references, on a GPU.
mod common;
use common::{c_program, run_ok, Driver, Via};

#[test]
fn half_programs_build_on_the_fake_device() {
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&c_program("fp16"), &["build"], via, Driver::Fake);
        assert!(out.contains("fp16 build: ") && out.contains(" 0 failed") && out.contains("PASS"), "{out}");
    }
}

#[test]
fn half_precision_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("fp16"), &[], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed") && out.contains("PASS"), "{out}");
}
