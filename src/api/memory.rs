//! PLACEHOLDER: being implemented (memory). Every entry point answers CL_INVALID_OPERATION for now.
#![allow(unused_imports)]
use super::entry::{entry, entry_ret};
use crate::cl::*;
use std::ffi::c_void;

#[no_mangle]
pub extern "C" fn clCreateBuffer(_context: cl_context, _flags: cl_mem_flags, _size: usize, _host_ptr: *mut c_void, _errcode_ret: *mut cl_int) -> cl_mem {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateBufferWithProperties(_context: cl_context, _properties: *const cl_mem_properties, _flags: cl_mem_flags, _size: usize, _host_ptr: *mut c_void, _errcode_ret: *mut cl_int) -> cl_mem {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateSubBuffer(_arg1: cl_mem, _arg2: cl_mem_flags, _arg3: cl_buffer_create_type, _arg4: *const c_void, _arg5: *mut cl_int) -> cl_mem {
    entry_ret(_arg5, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clRetainMemObject(_memobj: cl_mem) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clReleaseMemObject(_memobj: cl_mem) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetMemObjectInfo(_memobj: cl_mem, _param_name: cl_mem_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetMemObjectDestructorCallback(_arg1: cl_mem, _arg2: Option< unsafe extern "C" fn(arg1: cl_mem, arg2: *mut c_void), >, _arg3: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueReadBuffer(_command_queue: cl_command_queue, _buffer: cl_mem, _blocking_read: cl_bool, _offset: usize, _cb: usize, _ptr: *mut c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueWriteBuffer(_command_queue: cl_command_queue, _buffer: cl_mem, _blocking_write: cl_bool, _offset: usize, _cb: usize, _ptr: *const c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueCopyBuffer(_command_queue: cl_command_queue, _src_buffer: cl_mem, _dst_buffer: cl_mem, _src_offset: usize, _dst_offset: usize, _cb: usize, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueReadBufferRect(_command_queue: cl_command_queue, _buffer: cl_mem, _blocking_read: cl_bool, _buffer_origin: *const usize, _host_origin: *const usize, _region: *const usize, _buffer_row_pitch: usize, _buffer_slice_pitch: usize, _host_row_pitch: usize, _host_slice_pitch: usize, _ptr: *mut c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueWriteBufferRect(_command_queue: cl_command_queue, _buffer: cl_mem, _blocking_read: cl_bool, _buffer_origin: *const usize, _host_origin: *const usize, _region: *const usize, _buffer_row_pitch: usize, _buffer_slice_pitch: usize, _host_row_pitch: usize, _host_slice_pitch: usize, _ptr: *const c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueCopyBufferRect(_command_queue: cl_command_queue, _src_buffer: cl_mem, _dst_buffer: cl_mem, _src_origin: *const usize, _dst_origin: *const usize, _region: *const usize, _src_row_pitch: usize, _src_slice_pitch: usize, _dst_row_pitch: usize, _dst_slice_pitch: usize, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueFillBuffer(_command_queue: cl_command_queue, _buffer: cl_mem, _pattern: *const c_void, _pattern_size: usize, _offset: usize, _cb: usize, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueMapBuffer(_command_queue: cl_command_queue, _buffer: cl_mem, _blocking_map: cl_bool, _map_flags: cl_map_flags, _offset: usize, _cb: usize, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event, _errcode_ret: *mut cl_int) -> *mut c_void {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clEnqueueUnmapMemObject(_command_queue: cl_command_queue, _memobj: cl_mem, _mapped_ptr: *mut c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueMigrateMemObjects(_command_queue: cl_command_queue, _num_mem_objects: cl_uint, _mem_objects: *const cl_mem, _flags: cl_mem_migration_flags, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}
