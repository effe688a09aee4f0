//! The command path's shortcuts (tests/c/commands.c): blocking writes from pinned and pageable
//! memory, blocking reads, maps of part of a small buffer, reused events and profiling times.
//! Against the FAKE CUDA driver (tests/fakecuda), synchronous and asynchronous (FAKECUDA_ASYNC=1:
//! copies from or to pinned memory run later on a worker thread, as on a GPU); not GPU tests.
mod common;
use common::{c_program, run, Driver, Via};

fn commands(env: &[(&str, &str)]) {
    let exe = c_program("commands");
    let out = run(&exe, &[], Via::Loader, Driver::Fake, env);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(out.status.success(), "commands ({env:?}) failed: {:?}\n{text}", out.status);
    assert!(text.contains("fake CUDA driver detected"), "{text}");
    assert!(text.contains("commands: ") && text.contains(" 0 failed"), "{text}");
}

#[test]
fn fake_driver_commands() {
    commands(&[]);
}

#[test]
fn fake_driver_commands_async_streams() {
    commands(&[("FAKECUDA_ASYNC", "1"), ("FAKECUDA_ASYNC_DELAY_US", "300")]);
}
