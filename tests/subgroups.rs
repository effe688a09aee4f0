//! Sub-groups (tests/c/subgroups.c): with the fake CUDA driver (which runs no kernel), the
//! extension and feature macros, builds in each OpenCL C version and clGetKernelSubGroupInfo for
//! every work-group shape of the program; on a GPU, every sub-group built-in's result for each
//! shape against the program's own reference.
mod common;
use common::{c_program, run_ok, Driver, Via};

#[test]
fn sub_group_programs_build_on_the_fake_device() {
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&c_program("subgroups"), &[], via, Driver::Fake);
        assert!(out.contains("subgroups: ") && out.contains(" 0 failed") && out.contains("PASS"), "{out}");
    }
}

#[test]
fn sub_groups_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("subgroups"), &["gpu"], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed") && out.contains("PASS") && !out.contains("FAILED"), "{out}");
}
