//! cl_khr_command_buffer (tests/c/command_buffer.c): recording, replays (command by command,
//! then as CUDA graphs: the fake driver's counters check the graph launches), kernel arguments
//! captured at record time, error codes, info and device queries, and a timing print. With the
//! fake CUDA driver kernels do not run: their results are checked on the GPU only.
mod common;
use common::{c_program, fake_cuda_10_2_dir, run, run_ok, Driver, Via};

#[test]
fn command_buffers_with_a_fake_device() {
    let out = run_ok(&c_program("command_buffer"), &[], Via::Loader, Driver::Fake);
    assert!(out.contains("command_buffer: ") && out.contains(" 0 failed"), "{out}");
}

/// On a machine with a CUDA GPU: the same program against the real driver, kernels checked.
#[test]
fn command_buffers_on_the_gpu() {
    require_gpu!();
    let out = run_ok(&c_program("command_buffer"), &["gpu"], Via::Loader, Driver::System);
    assert!(out.contains(" 0 failed"), "{out}");
}

/// The fake driver's streams running behind the host (FAKECUDA_ASYNC=1), as a GPU's do.
#[test]
fn command_buffers_with_an_asynchronous_fake_device() {
    let out = run(&c_program("command_buffer"), &[], Via::Loader, Driver::Fake, &[("FAKECUDA_ASYNC", "1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");
}

/// A CUDA 10.2 driver (JetPack 4.6): no cuGraphInstantiate_v2, so graphs come from
/// cuGraphInstantiate.
#[test]
fn command_buffers_with_a_cuda_10_2_fake_device() {
    let dir = fake_cuda_10_2_dir();
    let env = [("LD_LIBRARY_PATH", dir.to_str().unwrap())];
    let out = run(&c_program("command_buffer"), &[], Via::Loader, Driver::System, &env);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");
}

/// CUDACL_COMMAND_BUFFER_GRAPHS=0: every replay command by command, with the same results.
#[test]
fn command_buffers_without_graphs() {
    let env = [("CUDACL_COMMAND_BUFFER_GRAPHS", "0")];
    let out = run(&c_program("command_buffer"), &[], Via::Loader, Driver::Fake, &env);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");
}

/// Two fake devices: a queue of the other device is CL_INCOMPATIBLE_COMMAND_QUEUE_KHR, and a
/// two-device context's buffer replays command by command (no graph), its data moving right.
#[test]
fn command_buffers_with_two_fake_devices() {
    let out = run(&c_program("command_buffer"), &[], Via::Loader, Driver::Fake, &[("FAKECUDA_DEVICES", "2")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" 0 failed") && !text.contains("two devices: skipped"),
        "{text}"
    );
}

/// Every capture failing (FAKECUDA_CAPTURE_FAILS=1): replays command by command with the same
/// results, and the context's callback says why.
#[test]
fn command_buffers_when_capture_fails() {
    let out =
        run(&c_program("command_buffer"), &[], Via::Loader, Driver::Fake, &[("FAKECUDA_CAPTURE_FAILS", "1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");
    assert!(text.contains("could not be captured into a CUDA graph"), "{text}");
}
