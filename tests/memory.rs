//! Buffers, through the OpenCL API: tests/c/buffers.c (every buffer flag, rect copies, fill,
//! map/unmap, sub-buffers, destructor callbacks, events with memory commands, multi-device
//! contexts) and a smoke run of the bandwidth benchmark.
//!
//! The `fake_driver_*` tests run against tests/fakecuda, a FAKE CUDA driver: they check the
//! runtime's logic (validation, bookkeeping, which copies are issued) on machines without a
//! GPU. They are not GPU tests. `gpu_*` tests need a real CUDA GPU and skip without one.
mod common;
use common::{c_program, run, Driver, Via};

/// Runs a test program and asserts it succeeded, echoing its output.
fn run_checked(name: &str, args: &[&str], via: Via, driver: Driver, env: &[(&str, &str)]) -> String {
    let exe = c_program(name);
    let out = run(&exe, args, via, driver, env);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(
        out.status.success(),
        "{name} {args:?} ({via:?}, {driver:?}, {env:?}) failed: {:?}\n{text}",
        out.status
    );
    assert!(!text.contains("FAIL"), "{text}");
    text
}

fn buffers(via: Via, env: &[(&str, &str)]) -> String {
    let text = run_checked("buffers", &[], via, Driver::Fake, env);
    assert!(text.contains("fake CUDA driver detected"), "{text}");
    assert!(text.contains("buffers: ") && text.contains(" 0 failed"), "{text}");
    text
}

#[test]
fn fake_driver_buffers_discrete_gpu_through_loader() {
    buffers(Via::Loader, &[]);
}

/// The host copies of staged transfers split over several threads (CI machines have two cores,
/// where the default is one thread), with uneven splits.
#[test]
fn fake_driver_buffers_parallel_host_copies() {
    for threads in ["3", "4"] {
        buffers(
            Via::Loader,
            &[("CUDACL_COPY_THREADS", threads), ("BUFFERS_ONLY", "large_transfers,threads,alloc_host_ptr")],
        );
    }
    buffers(
        Via::Loader,
        &[("CUDACL_COPY_THREADS", "4"), ("FAKECUDA_ASYNC", "1"), ("BUFFERS_ONLY", "large_transfers,threads")],
    );
}

#[test]
fn fake_driver_buffers_discrete_gpu_with_ld_preload() {
    buffers(Via::Preload, &[]);
}

/// Integrated GPU: host-backed buffers are zero-copy (the program checks that a map of a
/// USE_HOST_PTR buffer copies nothing).
#[test]
fn fake_driver_buffers_integrated_gpu_zero_copy() {
    let text = buffers(Via::Loader, &[("FAKECUDA_INTEGRATED", "1")]);
    assert!(text.contains(", integrated"), "{text}");
}

/// A device that cannot page-lock application memory (Jetson Nano/TX2): the copy-based
/// CL_MEM_USE_HOST_PTR fallback, on a discrete and on an integrated GPU.
#[test]
fn fake_driver_buffers_without_host_register() {
    buffers(Via::Loader, &[("FAKECUDA_NO_HOST_REGISTER", "1")]);
    buffers(Via::Loader, &[("FAKECUDA_NO_HOST_REGISTER", "1"), ("FAKECUDA_INTEGRATED", "1")]);
}

/// Two and three devices in one context: per-device allocation on first use, data following
/// the device that uses it (peer copies), maps and migration across devices.
#[test]
fn fake_driver_buffers_multi_device_context() {
    let text = buffers(Via::Loader, &[("FAKECUDA_DEVICES", "2")]);
    assert!(text.contains("multi_device") && !text.contains("multi-device: skipped"), "{text}");
    buffers(Via::Loader, &[("FAKECUDA_DEVICES", "3"), ("FAKECUDA_NO_HOST_REGISTER", "1")]);
    buffers(Via::Loader, &[("FAKECUDA_DEVICES", "2"), ("FAKECUDA_INTEGRATED", "1")]);
}

/// Single-device contexts allocate at clCreateBuffer, so a device out of memory is
/// CL_MEM_OBJECT_ALLOCATION_FAILURE there.
#[test]
fn fake_driver_allocation_failure_at_create() {
    let text = run_checked(
        "buffers",
        &["alloc-limit"],
        Via::Loader,
        Driver::Fake,
        &[("FAKECUDA_MEM_LIMIT", "33554432")],
    );
    assert!(text.contains("buffers alloc-limit: 2 passed, 0 failed"), "{text}");
}

/// The staging pipeline with small chunks and thresholds (many chunks per transfer, chunk
/// reuse while earlier DMA is pending) and a single copy thread.
#[test]
fn fake_driver_buffers_small_staging_chunks() {
    buffers(
        Via::Loader,
        &[
            ("CUDACL_STAGING_CHUNK_MB", "1"),
            ("CUDACL_STAGING_CHUNKS", "2"),
            ("CUDACL_STAGING_MIN", "4096"),
            ("CUDACL_STAGING_AFTER", "0"),
            ("CUDACL_COPY_THREADS", "1"),
            ("BUFFERS_ONLY", "large_transfers,read_write_copy,flag_matrix,map"),
        ],
    );
}

/// FAKECUDA_ASYNC=1: the fake driver's streams run their work later, on threads, so the host
/// runs ahead of the "device" as on a GPU (copies into pageable memory still block, as CUDA's
/// do). Catches missing waits and reuse of staging memory before its copy is done.
#[test]
fn fake_driver_buffers_async_streams() {
    buffers(Via::Loader, &[("FAKECUDA_ASYNC", "1")]);
    buffers(Via::Loader, &[("FAKECUDA_ASYNC", "1"), ("FAKECUDA_DEVICES", "2")]);
    buffers(Via::Loader, &[("FAKECUDA_ASYNC", "1"), ("FAKECUDA_INTEGRATED", "1")]);
    buffers(
        Via::Loader,
        &[
            ("FAKECUDA_ASYNC", "1"),
            ("FAKECUDA_ASYNC_DELAY_US", "2000"),
            ("CUDACL_STAGING_CHUNK_MB", "1"),
            ("CUDACL_STAGING_CHUNKS", "2"),
            ("BUFFERS_ONLY", "large_transfers,map,events,sub_buffers"),
        ],
    );
}

/// Random sequences of memory commands on every device, each waiting for the previous one,
/// checked against a model: several seeds on one, two and three (discrete and integrated)
/// devices, with synchronous and asynchronous fake streams.
#[test]
fn fake_driver_random_command_sequences() {
    let configs: [&[(&str, &str)]; 4] = [
        &[],
        &[("FAKECUDA_DEVICES", "2"), ("FAKECUDA_ASYNC", "1"), ("FAKECUDA_ASYNC_DELAY_US", "10")],
        &[
            ("FAKECUDA_DEVICES", "3"),
            ("FAKECUDA_INTEGRATED", "1"),
            ("FAKECUDA_ASYNC", "1"),
            ("FAKECUDA_ASYNC_DELAY_US", "10"),
        ],
        &[("FAKECUDA_DEVICES", "2"), ("FAKECUDA_NO_HOST_REGISTER", "1"), ("FAKECUDA_INTEGRATED", "1")],
    ];
    for config in configs {
        for seed in ["1", "20", "77"] {
            let mut env = config.to_vec();
            env.push(("BUFFERS_SEED", seed));
            env.push(("BUFFERS_ONLY", "random_ops"));
            buffers(Via::Loader, &env);
        }
    }
}

#[test]
fn fake_driver_bandwidth_benchmark_runs() {
    let text = run_checked("bandwidth", &["--quick"], Via::Loader, Driver::Fake, &[]);
    for row in ["write pageable", "read pageable", "write pinned", "read pinned", "copy device"] {
        assert!(text.contains(row), "{row}: {text}");
    }
}

/// On a real GPU (skipped without one).
#[test]
fn gpu_buffers() {
    require_gpu!();
    let text = run_checked("buffers", &[], Via::Loader, Driver::System, &[]);
    assert!(text.contains(" 0 failed"), "{text}");
}
