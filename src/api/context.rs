//! Contexts: creation from a device list or a device type, properties, queries.
use super::args::{property_pairs, slice_arg};
use super::info::InfoOut;
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::{Context, NotifyFn};
use crate::core::device::Device;
use crate::core::platform::{self, Platform};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

type PfnNotify = Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;

/// Reads a 0-terminated property list; returns the pairs as given (terminator included).
///
/// # Safety
/// `props` is NULL or a 0-terminated list of (name, value) pairs.
unsafe fn parse_properties(props: *const cl_context_properties) -> CLResult<Vec<cl_context_properties>> {
    let mut out = Vec::new();
    if props.is_null() {
        return Ok(out);
    }
    // SAFETY: this function's contract.
    for (name, value) in unsafe { property_pairs(props) } {
        if out.iter().step_by(2).any(|&seen| seen == name) {
            return Err(CL_INVALID_PROPERTY);
        }
        // The whole name is compared: an arbitrary value must not match by its low bits.
        match u32::try_from(name).unwrap_or(0) {
            CL_CONTEXT_PLATFORM => {
                Cl::<Platform>::get(value as cl_platform_id).map_err(|_| CL_INVALID_PLATFORM)?;
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {
                if value != CL_TRUE as cl_context_properties && value != CL_FALSE as cl_context_properties {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
        out.push(name);
        out.push(value);
    }
    out.push(0);
    Ok(out)
}

fn notify_of(pfn: PfnNotify, user_data: *mut c_void) -> CLResult<Option<(NotifyFn, *mut c_void)>> {
    match pfn {
        None if !user_data.is_null() => Err(CL_INVALID_VALUE),
        None => Ok(None),
        Some(f) => Ok(Some((f, user_data))),
    }
}

/// # Safety
/// `properties` as `parse_properties` requires, `devices` as `slice_arg`.
unsafe fn create(
    properties: *const cl_context_properties,
    devices: Vec<Arc<Cl<Device>>>,
    pfn: PfnNotify,
    user_data: *mut c_void,
) -> CLResult<cl_context> {
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let props = unsafe { parse_properties(properties) }?;
    let notify = notify_of(pfn, user_data)?;
    Ok(Cl::new_handle(Context::new(devices, props, notify)?))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContext(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: PfnNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    let body = || {
        // SAFETY: devices holds num_devices device handles, per the spec.
        let handles = unsafe { slice_arg(devices, num_devices as usize, CL_INVALID_VALUE) }?;
        if handles.is_empty() {
            return Err(CL_INVALID_VALUE);
        }
        let mut list: Vec<Arc<Cl<Device>>> = Vec::new();
        for d in Cl::get_list(handles)? {
            if !list.iter().any(|e| Arc::ptr_eq(e, &d)) {
                list.push(d);
            }
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { create(properties, list, pfn_notify, user_data) }
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateContextFromType(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: PfnNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    let body = || {
        let known = (CL_DEVICE_TYPE_DEFAULT
            | CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM) as cl_device_type;
        let all = CL_DEVICE_TYPE_ALL as cl_device_type;
        if device_type != all && (device_type & !known != 0 || device_type == 0) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { parse_properties(properties) }?;
        notify_of(pfn_notify, user_data)?;
        let gpu = device_type == all
            || device_type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT) as cl_device_type != 0;
        let mut devices = if gpu { platform::get().devices.clone() } else { Vec::new() };
        if device_type == CL_DEVICE_TYPE_DEFAULT as cl_device_type {
            devices.truncate(1);
        }
        if devices.is_empty() {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { create(properties, devices, pfn_notify, user_data) }
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    entry(|| Cl::<Context>::retain(context))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    entry(|| Cl::<Context>::release(context))
}

#[no_mangle]
pub unsafe extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let c = Cl::<Context>::get(context)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_CONTEXT_REFERENCE_COUNT => out.value::<cl_uint>(c.ref_count()),
            CL_CONTEXT_NUM_DEVICES => out.value::<cl_uint>(c.devices.len() as cl_uint),
            CL_CONTEXT_DEVICES => out.slice(&c.devices.iter().map(|d| d.handle()).collect::<Vec<_>>()),
            CL_CONTEXT_PROPERTIES => out.slice(&c.properties),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// OpenCL 3.0: callbacks run, last registered first, when the context is destroyed.
#[no_mangle]
pub unsafe extern "C" fn clSetContextDestructorCallback(
    context: cl_context,
    pfn_notify: Option<unsafe extern "C" fn(cl_context, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        let c = Cl::<Context>::get(context)?;
        c.add_destructor(pfn_notify.ok_or(CL_INVALID_VALUE)?, user_data, context);
        Ok(())
    })
}
