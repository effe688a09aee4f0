//! cudacl: an OpenCL 1.2 platform on top of the CUDA driver API.
//!
//! - `cl`: the Khronos types, constants and ICD dispatch table (bindgen, see build.rs).
//! - `api`: the exported OpenCL entry points (validation, error codes, info queries).
//! - `core`: the runtime logic (platform, devices, contexts, queues, events, memory, programs).
//! - `cuda`: safe wrappers over the CUDA driver API, loaded at run time.
pub mod api;
pub mod cl;
pub mod core;
pub mod cuda;
