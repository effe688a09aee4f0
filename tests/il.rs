//! IL programs (tests/c/il.c): the SPIR-V of il.c's own kernels, made here by clang-15 and
//! llvm-spirv-15 (scripts/setup.sh installs both), given to clCreateProgramWithIL. With the fake
//! CUDA driver (which runs no kernel): the queries, the error codes, builds, CL_PROGRAM_IL,
//! compile and link, specialization constants; without a translator
//! (CUDACL_LLVM_SPIRV set empty), the answers of a device without IL. On a GPU, the kernels'
//! results too.
mod common;
use common::{c_program, run, run_ok, work_dir, Driver, Via};
use std::path::PathBuf;
use std::process::Command;

/// il.c's kernels as SPIR-V (OpenCL C 2.0 for spir64, then the translator), made once.
fn kernels_spv() -> PathBuf {
    static SPV: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    SPV.get_or_init(|| {
        let d = work_dir().join(format!("il-spirv-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("folder");
        let out = Command::new(c_program("il")).arg("--print-source").output().expect("il --print-source");
        let cl = d.join("kernels.cl");
        std::fs::write(&cl, &out.stdout).expect("write source");
        let bc = d.join("kernels.bc");
        let st = Command::new("clang-15")
            .args([
                "-cl-std=CL2.0",
                "-target",
                "spir64",
                "-emit-llvm",
                "-c",
                "-Xclang",
                "-finclude-default-header",
            ])
            .arg(&cl)
            .arg("-o")
            .arg(&bc)
            .status()
            .expect("clang-15 (scripts/setup.sh installs it)");
        assert!(st.success(), "clang-15 failed");
        let spv = d.join("kernels.spv");
        let st = Command::new("llvm-spirv-15")
            .arg(&bc)
            .arg("-o")
            .arg(&spv)
            .status()
            .expect("llvm-spirv-15 (scripts/setup.sh installs it)");
        assert!(st.success(), "llvm-spirv-15 failed");
        spv
    })
    .clone()
}

#[test]
fn il_programs_on_the_fake_device() {
    let spv = kernels_spv();
    for via in [Via::Loader, Via::Preload] {
        let out = run_ok(&c_program("il"), &[spv.to_str().unwrap()], via, Driver::Fake);
        assert!(out.contains("il: ") && out.contains(" 0 failed"), "{out}");
        assert!(out.contains("CL_DEVICE_IL_VERSION \"SPIR-V_1.0"), "IL reported: {out}");
    }
}

#[test]
fn no_translator_no_il() {
    let exe = c_program("il");
    let out = run(&exe, &[], Via::Loader, Driver::Fake, &[("CUDACL_LLVM_SPIRV", "")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("reports no IL programs") && text.contains(" 0 failed"), "{text}");
}

#[test]
fn il_programs_on_the_gpu() {
    require_gpu!();
    let spv = kernels_spv();
    let out = run_ok(&c_program("il"), &[spv.to_str().unwrap(), "gpu"], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed") && out.contains("SPIR-V_1.0"), "{out}");
}
