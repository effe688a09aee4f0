//! Images and samplers. cudacl reports CL_DEVICE_IMAGE_SUPPORT = CL_FALSE, so no image or
//! sampler object can exist: creation answers CL_INVALID_OPERATION (the spec's code when no device
//! in the context supports images), and calls given an image answer CL_INVALID_MEM_OBJECT once
//! the other handles are checked.
use super::args::write_opt;
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::queue::Queue;
use std::ffi::c_void;

fn no_images(context: cl_context) -> CLResult<*mut _cl_mem> {
    Cl::<Context>::get(context)?;
    Err(CL_INVALID_OPERATION)
}

/// An enqueue naming an image: the queue is checked first, then the image (never valid).
fn no_image_enqueue(queue: cl_command_queue) -> CLResult<()> {
    Cl::<Queue>::get(queue)?;
    Err(CL_INVALID_MEM_OBJECT)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || no_images(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_row_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || no_images(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_depth: usize,
    _image_row_pitch: usize,
    _image_slice_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || no_images(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    _properties: *const cl_mem_properties,
    _flags: cl_mem_flags,
    _image_format: *const cl_image_format,
    _image_desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || no_images(context);
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// No image formats are supported: the list is empty.
#[no_mangle]
pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    entry(|| {
        Cl::<Context>::get(context)?;
        let image_types = [
            CL_MEM_OBJECT_IMAGE1D,
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE3D,
        ];
        if !super::memory::valid_mem_flags(flags)
            || !image_types.contains(&image_type)
            || (num_entries == 0 && !image_formats.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: num_image_formats is NULL or a cl_uint, per the spec.
        unsafe { write_opt(num_image_formats, 0) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetImageInfo(
    _image: cl_mem,
    _param_name: cl_image_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_MEM_OBJECT
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_read: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _ptr: *mut c_void,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_write: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _input_row_pitch: usize,
    _input_slice_pitch: usize,
    _ptr: *const c_void,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    _src_image: cl_mem,
    _dst_image: cl_mem,
    _src_origin: *const usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    _src_image: cl_mem,
    _dst_buffer: cl_mem,
    _src_origin: *const usize,
    _region: *const usize,
    _dst_offset: usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    _src_buffer: cl_mem,
    _dst_image: cl_mem,
    _src_offset: usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _fill_color: *const c_void,
    _origin: *const usize,
    _region: *const usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| no_image_enqueue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    _image: cl_mem,
    _blocking_map: cl_bool,
    _map_flags: cl_map_flags,
    _origin: *const usize,
    _region: *const usize,
    _image_row_pitch: *mut usize,
    _image_slice_pitch: *mut usize,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut ::std::os::raw::c_void {
    let body = || {
        no_image_enqueue(command_queue)?;
        Ok(std::ptr::null_mut::<c_void>())
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    _normalized_coords: cl_bool,
    _addressing_mode: cl_addressing_mode,
    _filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || no_images(context).map(|p| p.cast());
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    _arg2: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || no_images(context).map(|p| p.cast());
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainSampler(_sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseSampler(_sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

#[no_mangle]
pub unsafe extern "C" fn clGetSamplerInfo(
    _sampler: cl_sampler,
    _param_name: cl_sampler_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_SAMPLER
}
