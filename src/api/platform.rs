//! clGetPlatformIDs, clGetPlatformInfo, the ICD entry point and extension function lookup.
use super::args::{c_str, write_opt};
use super::info::InfoOut;
use crate::base::entry::{entry, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::features;
use crate::core::platform::{self, Platform};
use std::ffi::{c_char, c_void};

fn check_platform(p: cl_platform_id) -> CLResult<()> {
    // NULL selects the one platform (allowed where the spec says "implementation-defined").
    if p.is_null() {
        return Ok(());
    }
    Cl::<Platform>::get(p).map(|_| ())
}

/// # Safety
/// `platforms` is NULL or has `num_entries` writable slots; `num_platforms` is NULL or writable.
unsafe fn platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> CLResult<()> {
    if (num_entries == 0 && !platforms.is_null()) || (platforms.is_null() && num_platforms.is_null()) {
        return Err(CL_INVALID_VALUE);
    }
    if !platforms.is_null() {
        // SAFETY: num_entries >= 1 slots.
        unsafe { platforms.write(platform::get().handle()) };
    }
    // SAFETY: num_platforms is NULL or a cl_uint, per the spec.
    unsafe { write_opt(num_platforms, 1) };
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    entry(|| unsafe { platform_ids(num_entries, platforms, num_platforms) })
}

/// What ocl-icd and the Khronos loader call to enumerate an ICD's platforms.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    entry(|| unsafe { platform_ids(num_entries, platforms, num_platforms) })
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        check_platform(platform)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_PLATFORM_PROFILE => out.str("FULL_PROFILE"),
            CL_PLATFORM_VERSION => out.str(&platform::version()),
            CL_PLATFORM_NAME => out.str(platform::NAME),
            CL_PLATFORM_VENDOR => out.str(platform::VENDOR),
            CL_PLATFORM_EXTENSIONS => out.str(&features::names(&features::platform_extensions())),
            CL_PLATFORM_ICD_SUFFIX_KHR => out.str(platform::ICD_SUFFIX),
            CL_PLATFORM_NUMERIC_VERSION => out.value::<cl_version>(features::OPENCL_VERSION),
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => {
                out.slice(&features::with_version(&features::platform_extensions()))
            }
            // clGetDeviceAndHostTimer / clGetHostTimer read one monotonic nanosecond clock.
            CL_PLATFORM_HOST_TIMER_RESOLUTION => {
                out.value::<cl_ulong>(super::timer::HOST_TIMER_RESOLUTION_NS)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// Extension functions by name (cl_khr_icd, cl_khr_subgroups, cl_ext_buffer_device_address,
/// cl_khr_command_buffer, cl_khr_il_program); core functions are not returned (the specification reserves this query for extensions).
fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *mut c_void,
        // cl_khr_subgroups' name for the core query (same signature and values).
        "clGetKernelSubGroupInfoKHR" => super::kernel::clGetKernelSubGroupInfo as *mut c_void,
        "clSetKernelArgDevicePointerEXT" => super::kernel::clSetKernelArgDevicePointerEXT as *mut c_void,
        // cl_khr_il_program's name for the core entry point (same signature and codes).
        "clCreateProgramWithILKHR" if features::il_supported() => {
            super::program::clCreateProgramWithIL as *mut c_void
        }
        _ => super::command_buffer::function(name).unwrap_or(std::ptr::null_mut()),
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    // SAFETY: func_name is NULL or a NUL-terminated string, per the spec.
    std::panic::catch_unwind(|| unsafe { c_str(func_name) }.map_or(std::ptr::null_mut(), extension_function))
        .unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    if check_platform(platform).is_err() || platform.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the same contract as this function's own.
    unsafe { clGetExtensionFunctionAddress(func_name) }
}

/// ptxgen keeps its caches for the life of the process; there is nothing to unload that would
/// not be reloaded by the next build, so these only validate (as the spec allows: a hint).
#[no_mangle]
pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int {
    entry(|| {
        if platform.is_null() {
            return Err(CL_INVALID_PLATFORM);
        }
        check_platform(platform)
    })
}
