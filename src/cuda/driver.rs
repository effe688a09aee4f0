//! Loading the driver once per process and listing its devices.
use super::error::{check, CudaResult};
use super::sys;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// The loaded driver: its version and the devices it sees.
pub struct Driver {
    /// cuDriverGetVersion, e.g. 13000 for CUDA 13.0.
    pub version: i32,
    pub devices: Vec<sys::CUdevice>,
}

/// The driver, or None when libcuda.so.1 is absent, unusable, or has no devices.
/// `CUDACL_DISABLE_CUDA=1` hides it (tests of the no-driver path on a GPU machine).
pub fn driver() -> Option<&'static Driver> {
    static DRIVER: OnceLock<Option<Driver>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            if std::env::var_os("CUDACL_DISABLE_CUDA").is_some_and(|v| v != "0") {
                return None;
            }
            // A missing symbol makes cudarc panic: treat that as "no usable driver".
            catch_unwind(AssertUnwindSafe(load)).ok().and_then(|r| r.ok())
        })
        .as_ref()
}

fn load() -> CudaResult<Driver> {
    // SAFETY: plain driver API calls with valid out-pointers.
    unsafe {
        if !sys::is_culib_present() {
            return Err(super::CudaError(sys::CUresult::CUDA_ERROR_NOT_FOUND));
        }
        // Every entry point cudacl calls must be there before any is called: cudarc panics on a
        // missing one (see symbols.rs). A driver older than CUDA 10.2 gives no devices.
        if !super::symbols::missing().is_empty() {
            return Err(super::CudaError(sys::CUresult::CUDA_ERROR_NOT_FOUND));
        }
        check(sys::cuInit(0))?;
        let mut version = 0;
        check(sys::cuDriverGetVersion(&mut version))?;
        let mut count = 0;
        check(sys::cuDeviceGetCount(&mut count))?;
        let mut devices = Vec::new();
        for i in 0..count {
            let mut d = 0;
            check(sys::cuDeviceGet(&mut d, i))?;
            devices.push(d);
        }
        Ok(Driver { version, devices })
    }
}

/// One integer device attribute (0 when the driver does not know it).
pub fn attribute(dev: sys::CUdevice, attr: sys::CUdevice_attribute) -> i32 {
    let mut v = 0;
    // SAFETY: valid out-pointer; an unknown attribute leaves v at 0.
    let r = unsafe { sys::cuDeviceGetAttribute(&mut v, attr, dev) };
    if r == sys::CUresult::CUDA_SUCCESS {
        v
    } else {
        0
    }
}

pub fn device_name(dev: sys::CUdevice) -> String {
    let mut buf = [0 as std::os::raw::c_char; 256];
    // SAFETY: buffer and its length.
    unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as i32, dev) };
    buf[buf.len() - 1] = 0;
    // SAFETY: buf ends in a NUL whatever the driver wrote (or did not write).
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

pub fn total_memory(dev: sys::CUdevice) -> u64 {
    let mut bytes = 0usize;
    // SAFETY: valid out-pointer.
    unsafe { sys::cuDeviceTotalMem_v2(&mut bytes, dev) };
    bytes as u64
}

pub fn pci_bus_id(dev: sys::CUdevice) -> String {
    let mut buf = [0 as std::os::raw::c_char; 64];
    // SAFETY: buf has buf.len() writable bytes.
    unsafe { sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as i32, dev) };
    buf[buf.len() - 1] = 0;
    // SAFETY: buf ends in a NUL whatever the driver wrote (or did not write).
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}
