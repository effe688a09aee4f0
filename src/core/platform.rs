//! The one cudacl platform: present whether or not a CUDA driver is, with a device per CUDA GPU.
use super::device::Device;
use crate::base::handle::Cl;
use crate::cl::*;
use std::sync::{Arc, OnceLock};

pub const NAME: &str = "cudacl";
pub const VENDOR: &str = "cudacl project";
pub const ICD_SUFFIX: &str = "CUDACL";

pub fn version() -> String {
    format!("OpenCL 3.0 cudacl {}", env!("CARGO_PKG_VERSION"))
}

pub struct Platform {
    pub devices: Vec<Arc<Cl<Device>>>,
}
crate::cl_object!(Platform, cl_platform_id, CL_INVALID_PLATFORM);

/// The platform, created on first use (which loads the CUDA driver if there is one).
pub fn get() -> &'static Arc<Cl<Platform>> {
    static PLATFORM: OnceLock<Arc<Cl<Platform>>> = OnceLock::new();
    PLATFORM.get_or_init(|| {
        let devices = match crate::cuda::driver::driver() {
            Some(drv) => drv
                .devices
                .iter()
                .enumerate()
                .map(|(i, &d)| Cl::publish(Device::probe(i, d, drv.version)))
                .collect(),
            None => Vec::new(),
        };
        Cl::publish(Platform { devices })
    })
}
