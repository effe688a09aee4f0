//! The OpenCL C API: one file per object kind, each holding its extern "C" entry points,
//! argument validation and clGet*Info. The logic lives in `core`.
pub mod args;
pub mod icd;
pub mod info;

pub mod context;
pub mod device;
pub mod event;
pub mod gl;
pub mod image;
pub mod kernel;
pub mod memory;
pub mod platform;
pub mod program;
pub mod queue;
pub mod svm;
