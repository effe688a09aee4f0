//! clGetDeviceAndHostTimer and clGetHostTimer (OpenCL 2.1 device and host timer
//! synchronisation). Profiling timestamps are already expressed on one host clock (each queue
//! maps its CUDA events onto it when it is created: core::queue), so that clock is the device
//! timer as much as the host timer, and the pair read together are the same instant.
use crate::base::entry::entry;
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::clock::host_ns;
use crate::core::device::Device;

/// CL_PLATFORM_HOST_TIMER_RESOLUTION: the clock counts nanoseconds (a monotonic clock).
pub const HOST_TIMER_RESOLUTION_NS: cl_ulong = 1;

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    entry(|| {
        Cl::<Device>::get(device)?;
        if device_timestamp.is_null() || host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let now = host_ns();
        // SAFETY: both are non-NULL cl_ulong pointers, per the spec.
        unsafe {
            device_timestamp.write(now);
            host_timestamp.write(now);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetHostTimer(device: cl_device_id, host_timestamp: *mut cl_ulong) -> cl_int {
    entry(|| {
        Cl::<Device>::get(device)?;
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: a non-NULL cl_ulong pointer, per the spec.
        unsafe { host_timestamp.write(host_ns()) };
        Ok(())
    })
}
