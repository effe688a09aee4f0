//! Safe wrappers over the CUDA driver API. libcuda.so.1 is opened at run time (cudarc's
//! dynamic-loading bindings): nothing CUDA is needed to build or load cudacl, and on a machine
//! without the driver `driver()` is simply `None`.
pub mod array;
pub mod context;
pub mod current;
pub mod driver;
pub mod error;
pub mod event;
pub mod fault;
pub mod graph;
pub mod memory;
pub mod module;
pub mod peer;
pub mod pool;
pub mod stream;
pub mod symbols;

pub use cudarc::driver::sys;
pub use error::{CudaError, CudaResult};
