//! Images and samplers, host side, through the OpenCL API: tests/c/images.c (formats, creation
//! rules and error codes, info, round trips for every format and image type, copies between
//! images and buffers, fills, maps, host-pointer flags, samplers, image/sampler kernel arguments
//! and the descriptor a kernel receives, multi-device contexts).
//!
//! The `fake_driver_*` tests run against tests/fakecuda, a FAKE CUDA driver (arrays are host
//! memory with a pitch): they check the runtime's logic, not a GPU. `gpu_images` needs a real
//! CUDA GPU and skips without one.
mod common;
use common::{c_program, run, Driver, Via};

fn images(driver: Driver, env: &[(&str, &str)]) -> String {
    let exe = c_program("images");
    let out = run(&exe, &[], Via::Loader, driver, env);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(out.status.success(), "images ({driver:?}, {env:?}) failed: {:?}\n{text}", out.status);
    assert!(!text.contains("FAIL"), "{text}");
    assert!(text.contains("images: ") && text.contains(" 0 failed"), "{text}");
    text
}

#[test]
fn fake_driver_images() {
    let text = images(Driver::Fake, &[]);
    assert!(text.contains("fake CUDA driver detected"), "{text}");
    assert!(text.contains("kernel_args: ok"), "{text}");
}

/// Streams that run later than the calls (the host runs ahead, as on a GPU).
#[test]
fn fake_driver_images_async_streams() {
    images(Driver::Fake, &[("FAKECUDA_ASYNC", "1"), ("FAKECUDA_ASYNC_DELAY_US", "20")]);
}

/// Two devices in one context: arrays per device, peer copies, maps after another device wrote.
#[test]
fn fake_driver_images_multi_device() {
    let text = images(Driver::Fake, &[("FAKECUDA_DEVICES", "2")]);
    assert!(text.contains("multi_device: done"), "{text}");
    images(
        Driver::Fake,
        &[("FAKECUDA_DEVICES", "2"), ("FAKECUDA_ASYNC", "1"), ("FAKECUDA_ASYNC_DELAY_US", "20")],
    );
}

/// An integrated GPU as on Jetson (CU_DEVICE_ATTRIBUTE_INTEGRATED, no cuMemHostRegister): buffers
/// take the zero-copy path there; images keep their CUDA arrays, and USE/ALLOC_HOST_PTR images
/// their host copies, beside them.
#[test]
fn fake_driver_images_integrated() {
    images(Driver::Fake, &[("FAKECUDA_INTEGRATED", "1"), ("FAKECUDA_NO_HOST_REGISTER", "1")]);
    images(Driver::Fake, &[("FAKECUDA_INTEGRATED", "1"), ("FAKECUDA_DEVICES", "2")]);
}

/// Every image transfer through cudacl's pinned staging chunks (core/transfer.rs), in many
/// pieces (1 MiB chunks, two of them, streams running behind the host).
#[test]
fn fake_driver_images_staged_transfers() {
    let text = images(
        Driver::Fake,
        &[
            ("CUDACL_STAGING_MIN", "1"),
            ("CUDACL_STAGING_AFTER", "0"),
            ("CUDACL_STAGING_CHUNK_MB", "1"),
            ("CUDACL_STAGING_CHUNKS", "2"),
            ("FAKECUDA_ASYNC", "1"),
            ("FAKECUDA_ASYNC_DELAY_US", "20"),
            ("IMAGES_ONLY", "round_trips,copies,fill,map,host_ptr_flags"),
        ],
    );
    assert!(text.contains("round_trips: ok"), "{text}");
}

/// A CUDA 10.2 driver (JetPack 4.6) has every entry point images use.
#[test]
fn fake_driver_images_cuda_10_2() {
    let dir = common::fake_cuda_10_2_dir();
    let text = images(
        Driver::Fake,
        &[("LD_LIBRARY_PATH", dir.to_str().unwrap()), ("IMAGES_ONLY", "device_info,round_trips,copies,map")],
    );
    assert!(text.contains("round_trips: ok"), "{text}");
}

/// On a real GPU (skipped without one).
#[test]
fn gpu_images() {
    require_gpu!();
    images(Driver::System, &[]);
}
