//! The runtime's logic, independent of the C API: platform, devices, contexts, queues, events,
//! memory objects, programs and kernels.
pub mod clock;
pub mod coherence;
pub mod command;
pub mod command_buffer;
pub mod context;
pub mod device;
pub mod event;
pub mod features;
pub mod fill;
pub mod image;
pub mod image_format;
pub mod image_ops;
pub mod image_shape;
pub mod kernel;
pub mod memory;
pub mod par_copy;
pub mod platform;
pub mod program;
pub mod queue;
pub mod rect;
pub mod sampler;
pub mod transfer;
pub mod watcher;
