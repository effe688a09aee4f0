//! Programs, kernels and NDRange launches.
//! - CPU (CI): tests/c/kernel_api.c against the fake CUDA driver, which records each launch
//!   (grid, block, shared bytes, parameter buffer): argument layout, __local offsets, implicit
//!   arguments, chosen local sizes, every launch error code, programs/binaries/compile/link,
//!   per-device builds; plus the local-size and geometry rules as unit tests.
//! - GPU (skipped without one): tests/c/kernels.c runs real kernels and checks their results.
mod common;
use common::{c_program, run, run_ok, Driver, Via};
use cudacl::cl::*;
use cudacl::core::kernel::{choose_local, geometry, largest_divisor_at_most, Limits};

fn output(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn launch_layout_and_errors_on_the_fake_driver_through_ld_preload() {
    let out = run_ok(&c_program("kernel_api"), &[], Via::Preload, Driver::Fake);
    assert!(out.contains("kernel_api: ") && out.contains(" 0 failed"), "{out}");
}

#[test]
fn launch_layout_and_errors_on_the_fake_driver_through_the_loader() {
    let out = run_ok(&c_program("kernel_api"), &[], Via::Loader, Driver::Fake);
    assert!(out.contains(" 0 failed"), "{out}");
}

/// A fault that poisons the whole process, as NVIDIA's driver 580 does (the fake driver's
/// FAKECUDA_FAULT_POISONS=1): new contexts fail with CL_OUT_OF_RESOURCES and a pfn_notify message
/// naming the sticky error and the restart, also after the faulted context is released; no hang.
#[test]
fn a_poisoning_fault_gives_a_clean_context_error() {
    let exe = c_program("kernel_api");
    let out = run(&exe, &["fault"], Via::Loader, Driver::Fake, &[("FAKECUDA_FAULT_POISONS", "1")]);
    let text = output(&out);
    println!("{text}");
    assert!(
        out.status.success()
            && text.contains("after a poisoning fault: no context")
            && text.contains("kernel_api fault: ")
            && text.contains(" 0 failed"),
        "{text}"
    );
}

#[test]
fn per_device_builds_in_a_two_device_context() {
    let exe = c_program("kernel_api");
    let out = run(&exe, &["multi"], Via::Preload, Driver::Fake, &[("FAKECUDA_DEVICES", "2")]);
    let text = output(&out);
    println!("{text}");
    assert!(
        out.status.success() && text.contains("kernel_api multi: ") && text.contains(" 0 failed"),
        "{text}"
    );
}

/// The real-kernel program on a real GPU (vector add, 2-D/3-D offsets, __local reductions,
/// structs by value, printf, binaries, compile/link, launch errors, an illegal address).
#[test]
fn real_kernels_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("kernels"), &[], Via::Loader, Driver::System);
    assert!(out.contains("kernels: ") && out.contains(" 0 failed"), "{out}");
    assert!(out.contains("kernel printf: 42 ok 1.50"), "{out}");
    assert!(out.contains("process alive"), "{out}");
}

/// Loops stepping by a run-time stride, in every shape ptxgen's chunked unrolling
/// (ptxgen/bridge/stride_unroll.cpp) rewrites or leaves alone, against the same loops on the host:
/// trip counts 0 to many, starts past the end, do-while, phis of phis, values used after the loop.
#[test]
fn stride_loops_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("stride_loops"), &[], Via::Loader, Driver::System);
    assert!(out.contains("stride_loops: ") && out.contains(" 0 failed"), "{out}");
}

#[test]
fn microbench_compiles() {
    let src = common::repo().join("bench/microbench.c");
    let exe = common::work_dir().join(format!("microbench-{}", std::process::id()));
    let out = std::process::Command::new("cc")
        .args([
            "-O2",
            "-Wall",
            "-Werror",
            src.to_str().unwrap(),
            "-o",
            exe.to_str().unwrap(),
            "-lOpenCL",
            "-lm",
        ])
        .output()
        .expect("run cc");
    assert!(out.status.success(), "{}", output(&out));
}

const H100: Limits = Limits {
    max_threads: 1024,
    max_item: [1024, 1024, 64],
    max_grid: [2147483647, 65535, 65535],
    compute_units: 132,
};

#[test]
fn divisors() {
    assert_eq!(largest_divisor_at_most(1000, 256), 250);
    assert_eq!(largest_divisor_at_most(1009, 256), 1);
    assert_eq!(largest_divisor_at_most(7, 256), 7);
    assert_eq!(largest_divisor_at_most(1 << 20, 256), 256);
    assert_eq!(largest_divisor_at_most(1, 256), 1);
}

#[test]
fn chosen_local_sizes_divide_and_fill_the_gpu() {
    // Large 1-D: 256 per group.
    assert_eq!(choose_local(&[1 << 24], &H100), [256, 1, 1]);
    // Small 1-D: smaller groups so that all 132 SMs get work.
    let l = choose_local(&[16384], &H100);
    assert!(16384 % l[0] == 0 && 16384 / l[0] >= 132, "{l:?}");
    // 2-D: a square-ish tile, dividing both sizes.
    let l = choose_local(&[1024, 1024], &H100);
    assert!(l[0] * l[1] == 256 && 1024 % l[0] == 0 && 1024 % l[1] == 0, "{l:?}");
    let l = choose_local(&[48, 20], &H100);
    assert!(48 % l[0] == 0 && 20 % l[1] == 0 && l[0] * l[1] <= 256, "{l:?}");
    // 3-D respects the z limit (64).
    let l = choose_local(&[8, 8, 1024], &H100);
    assert!(l[2] <= 64 && l[0] * l[1] * l[2] <= 1024, "{l:?}");
    // reqd_work_group_size wins.
    // More work-items than a size_t counts (2^66): refused; 2^48 and 2^32 + 16 are fine.
    assert_eq!(
        geometry(2, None, Some(&[1 << 33, 1 << 33]), Some(&[128, 8]), None, &H100),
        Err(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    assert!(geometry(3, None, Some(&[65536, 65536, 65536]), Some(&[256, 1, 4]), None, &H100).is_ok());
    assert!(geometry(1, None, Some(&[(1 << 32) + 16]), None, None, &H100).is_ok());
    // A kernel with reqd_work_group_size must be given that local size (OpenCL 1.2, 5.8).
    assert_eq!(
        geometry(2, None, Some(&[64, 64]), None, Some([8, 4, 1]), &H100),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert!(geometry(2, None, Some(&[64, 64]), Some(&[8, 4]), Some([8, 4, 1]), &H100).is_ok());
    // Too many groups in y: larger groups in y.
    let l = choose_local(&[1, 1 << 17], &H100);
    assert!((1u64 << 17) / l[1] <= 65535, "{l:?}");
}

#[test]
fn geometry_follows_opencl_1_2() {
    let g = geometry(2, Some(&[3, 9]), Some(&[64, 6]), Some(&[16, 2]), None, &H100).unwrap();
    assert_eq!(g.grid, [4, 3, 1]);
    assert_eq!(g.block, [16, 2, 1]);
    assert_eq!(g.offset, [3, 9, 0]);
    assert_eq!(geometry(0, None, Some(&[1]), None, None, &H100), Err(CL_INVALID_WORK_DIMENSION));
    assert_eq!(geometry(4, None, Some(&[1]), None, None, &H100), Err(CL_INVALID_WORK_DIMENSION));
    assert_eq!(geometry(1, None, None, None, None, &H100).map(|g| g.grid), Ok([0, 0, 0]));
    // OpenCL 2.1+ (cudacl reports 3.0): an empty range launches nothing (the CTS's api
    // zero_sized_enqueue); a local size given with it is still checked.
    assert_eq!(geometry(2, None, Some(&[0, 8]), None, None, &H100).map(|g| g.grid), Ok([0, 0, 0]));
    assert_eq!(
        geometry(1, None, Some(&[0]), Some(&[2048]), None, &H100).err(),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert_eq!(
        geometry(1, None, Some(&[0]), Some(&[0]), None, &H100).err(),
        Some(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert_eq!(
        geometry(1, Some(&[usize::MAX]), Some(&[2]), None, None, &H100),
        Err(CL_INVALID_GLOBAL_OFFSET)
    );
    assert_eq!(geometry(1, None, Some(&[100]), Some(&[64]), None, &H100), Err(CL_INVALID_WORK_GROUP_SIZE));
    assert_eq!(geometry(1, None, Some(&[4096]), Some(&[2048]), None, &H100), Err(CL_INVALID_WORK_GROUP_SIZE));
    assert_eq!(geometry(1, None, Some(&[64]), Some(&[0]), None, &H100), Err(CL_INVALID_WORK_GROUP_SIZE));
    assert_eq!(
        geometry(3, None, Some(&[1, 1, 128]), Some(&[1, 1, 128]), None, &H100),
        Err(CL_INVALID_WORK_ITEM_SIZE)
    );
    assert_eq!(
        geometry(2, None, Some(&[64, 64]), Some(&[4, 8]), Some([8, 4, 1]), &H100),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    // OpenCL 1.2: no local size for a kernel with reqd_work_group_size is an error too.
    assert_eq!(
        geometry(2, None, Some(&[64, 64]), None, Some([8, 4, 1]), &H100),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert!(geometry(2, None, Some(&[64, 64]), Some(&[8, 4]), Some([8, 4, 1]), &H100).is_ok());
    // More groups in y than CUDA's grid takes: accepted (launched in pieces); in x, refused.
    let g = geometry(2, None, Some(&[1, 1 << 17]), Some(&[1, 1]), None, &H100).unwrap();
    assert_eq!(g.grid, [1, 1 << 17, 1]);
    assert_eq!(
        geometry(3, None, Some(&[1, 1, 1 << 31]), Some(&[1, 1, 1]), None, &H100),
        Err(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    assert_eq!(
        geometry(1, None, Some(&[1 << 31]), Some(&[1]), None, &H100),
        Err(CL_INVALID_GLOBAL_WORK_SIZE)
    );
    let g = geometry(2, None, Some(&[1, 1 << 17]), None, None, &H100).unwrap();
    assert!(g.grid[1] <= 65535 && g.grid[1] as u64 * g.block[1] as u64 == 1 << 17);
    let g = geometry(1, None, Some(&[1]), Some(&[1]), None, &H100).unwrap();
    assert_eq!((g.grid, g.block, g.work_dim), ([1, 1, 1], [1, 1, 1], 1));
}

/// Entry points with NULL handles answer their kind's error and never crash.
#[test]
fn null_handles() {
    use cudacl::api::kernel::*;
    use cudacl::api::program::*;
    use std::ptr::null_mut;
    let mut err = 0;
    // SAFETY: every pointer passed is NULL or points to a local of the type the entry point
    // writes; the handles are NULL, which each entry point checks before use.
    unsafe {
        assert!(clCreateKernel(null_mut(), c"k".as_ptr(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_PROGRAM);
        assert_eq!(clSetKernelArg(null_mut(), 0, 0, std::ptr::null()), CL_INVALID_KERNEL);
        assert_eq!(
            clEnqueueNDRangeKernel(
                null_mut(),
                null_mut(),
                1,
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null(),
                0,
                std::ptr::null(),
                null_mut()
            ),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            clEnqueueTask(null_mut(), null_mut(), 0, std::ptr::null(), null_mut()),
            CL_INVALID_COMMAND_QUEUE
        );
        assert_eq!(
            clGetProgramBuildInfo(null_mut(), null_mut(), CL_PROGRAM_BUILD_LOG, 0, null_mut(), null_mut()),
            CL_INVALID_PROGRAM
        );
        assert_eq!(
            clCompileProgram(
                null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null(),
                0,
                std::ptr::null(),
                null_mut(),
                None,
                null_mut()
            ),
            CL_INVALID_PROGRAM
        );
        assert!(clLinkProgram(
            null_mut(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            None,
            null_mut(),
            &mut err
        )
        .is_null());
        assert_eq!(err, CL_INVALID_CONTEXT);
        assert_eq!(clCreateKernelsInProgram(null_mut(), 0, null_mut(), null_mut()), CL_INVALID_PROGRAM);
        assert!(clCloneKernel(null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_KERNEL);
        assert_eq!(
            clGetKernelArgInfo(null_mut(), 0, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()),
            CL_INVALID_KERNEL
        );
        assert_eq!(
            clGetKernelWorkGroupInfo(
                null_mut(),
                null_mut(),
                CL_KERNEL_WORK_GROUP_SIZE,
                0,
                null_mut(),
                null_mut()
            ),
            CL_INVALID_KERNEL
        );
        assert_eq!(
            clGetKernelSubGroupInfo(
                null_mut(),
                null_mut(),
                0,
                0,
                std::ptr::null(),
                0,
                null_mut(),
                null_mut()
            ),
            CL_INVALID_KERNEL
        );
        assert_eq!(
            clEnqueueNativeKernel(
                null_mut(),
                None,
                null_mut(),
                0,
                0,
                std::ptr::null(),
                null_mut(),
                0,
                std::ptr::null(),
                null_mut()
            ),
            CL_INVALID_COMMAND_QUEUE
        );
    }
}
