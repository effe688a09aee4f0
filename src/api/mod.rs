//! The OpenCL C API: one file per object kind, each holding its extern "C" entry points,
//! argument validation and clGet*Info. The logic lives in `core`.
//!
//! # Safety
//! Every entry point is an `unsafe extern "C" fn` with one contract, the OpenCL specification's:
//! each pointer argument is NULL where the specification allows it, and otherwise points to
//! memory of the size and kind that the specification gives for that argument (a list of `n`
//! handles, a NUL-terminated string, `param_value_size` writable bytes...). Handles need not be
//! valid: they are looked up in the handle table before use. Within that contract no call
//! reaches undefined behaviour, so the functions carry no `# Safety` section of their own.
#![allow(clippy::missing_safety_doc)]
pub mod args;
pub mod icd;
pub mod info;

pub mod command_buffer;
pub mod context;
pub mod device;
pub mod event;
pub mod gl;
pub mod image;
pub mod kernel;
pub mod kernel_args;
pub mod memory;
pub mod mutable_dispatch;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod svm;
pub mod timer;
