//! Buffers (being implemented). The interface the kernel-launch path uses is stable:
//! `Mem::device_ptr(q)` and `Mem::note_device_write(q)`.
use super::context::Context;
use super::queue::Queue;
use crate::api::entry::CLResult;
use crate::api::handle::Cl;
use crate::cl::*;
use crate::cuda::memory::DevicePtr;
use std::sync::Arc;

pub struct Mem {
    pub context: Arc<Cl<Context>>,
    pub flags: cl_mem_flags,
    pub size: usize,
}
crate::cl_object!(Mem, cl_mem, CL_INVALID_MEM_OBJECT);

impl Mem {
    /// Makes the buffer's data valid on `q`'s device (enqueuing any migration on q.stream) and
    /// returns its device address, sub-buffer offset included. Call it from the command's work
    /// (at submission time, with q's CUDA context current).
    pub fn device_ptr(&self, _q: &Queue) -> CLResult<DevicePtr> {
        Err(CL_INVALID_OPERATION)
    }

    /// A kernel on `q`'s device may have written the buffer: that device now holds the only
    /// up-to-date copy. Call it from the command's work, after the launch.
    pub fn note_device_write(&self, _q: &Queue) {}
}
