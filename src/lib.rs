//! cudacl: an OpenCL 1.2 platform on top of the CUDA driver API.
//!
//! - `cl`: the Khronos types, constants and ICD dispatch table (bindgen, see build.rs).
//! - `base`: what api and core both use: the entry wrappers, `CLResult`, `lock`, handles.
//! - `api`: the exported OpenCL entry points (validation, error codes, info queries).
//! - `core`: the runtime logic (platform, devices, contexts, queues, events, memory, programs).
//! - `cuda`: safe wrappers over the CUDA driver API, loaded at run time.
// Every unsafe operation sits in its own block with a comment saying why it holds.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod api;
pub mod base;
pub mod cl;
pub mod core;
pub mod cuda;

/// The ICD dispatch table every handle carries as its first word. Its entries are the api
/// layer's functions while handles belong to base, which imports nothing from above it: the
/// crate root is the one place where the two layers meet.
pub(crate) fn icd_dispatch() -> &'static base::handle::Dispatch {
    &api::icd::DISPATCH
}
