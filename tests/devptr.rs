//! Device pointers (tests/c/devptr.c): cl_ext_buffer_device_address and coarse-grain buffer SVM.
//! With the fake CUDA driver (which runs no kernel but does copy and fill memory): the queries,
//! error codes and the SVM commands' data, with SVM as managed memory (a discrete GPU) and as
//! mapped page-locked memory (an integrated one: Jetson); on a GPU, the kernels too.
mod common;
use common::{c_program, run, run_ok, Driver, Via};

#[test]
fn device_pointers_on_the_fake_device() {
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&c_program("devptr"), &[], via, Driver::Fake);
        assert!(out.contains("devptr: ") && out.contains(" 0 failed") && out.contains("PASS"), "{out}");
    }
}

#[test]
fn svm_as_mapped_page_locked_memory_on_an_integrated_fake_device() {
    let env = [("FAKECUDA_INTEGRATED", "1"), ("CUDACL_FORCE_INTEGRATED", "1")];
    let out = run(&c_program("devptr"), &[], Via::Loader, Driver::Fake, &env);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains(" 0 failed") && text.contains("PASS"), "{text}");
}

#[test]
fn device_pointers_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("devptr"), &["gpu"], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed") && out.contains("PASS"), "{out}");
}
