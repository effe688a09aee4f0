//! PLACEHOLDER: being implemented (program). Every entry point answers CL_INVALID_OPERATION for now.
#![allow(unused_imports)]
use super::entry::{entry, entry_ret};
use crate::cl::*;
use std::ffi::c_void;

#[no_mangle]
pub extern "C" fn clCreateProgramWithSource(_context: cl_context, _count: cl_uint, _strings: *mut *const ::std::os::raw::c_char, _lengths: *const usize, _errcode_ret: *mut cl_int) -> cl_program {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateProgramWithBinary(_context: cl_context, _num_devices: cl_uint, _device_list: *const cl_device_id, _lengths: *const usize, _binaries: *mut *const ::std::os::raw::c_uchar, _binary_status: *mut cl_int, _errcode_ret: *mut cl_int) -> cl_program {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateProgramWithBuiltInKernels(_context: cl_context, _num_devices: cl_uint, _device_list: *const cl_device_id, _kernel_names: *const ::std::os::raw::c_char, _errcode_ret: *mut cl_int) -> cl_program {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateProgramWithIL(_context: cl_context, _il: *const c_void, _length: usize, _errcode_ret: *mut cl_int) -> cl_program {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clRetainProgram(_program: cl_program) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clReleaseProgram(_program: cl_program) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clBuildProgram(_program: cl_program, _num_devices: cl_uint, _device_list: *const cl_device_id, _options: *const ::std::os::raw::c_char, _pfn_notify: Option< unsafe extern "C" fn(program: cl_program, user_data: *mut c_void), >, _user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clCompileProgram(_program: cl_program, _num_devices: cl_uint, _device_list: *const cl_device_id, _options: *const ::std::os::raw::c_char, _num_input_headers: cl_uint, _input_headers: *const cl_program, _header_include_names: *mut *const ::std::os::raw::c_char, _pfn_notify: Option< unsafe extern "C" fn(program: cl_program, user_data: *mut c_void), >, _user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clLinkProgram(_context: cl_context, _num_devices: cl_uint, _device_list: *const cl_device_id, _options: *const ::std::os::raw::c_char, _num_input_programs: cl_uint, _input_programs: *const cl_program, _pfn_notify: Option< unsafe extern "C" fn(program: cl_program, user_data: *mut c_void), >, _user_data: *mut c_void, _errcode_ret: *mut cl_int) -> cl_program {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clGetProgramInfo(_program: cl_program, _param_name: cl_program_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetProgramBuildInfo(_program: cl_program, _device: cl_device_id, _param_name: cl_program_build_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetProgramReleaseCallback(_program: cl_program, _pfn_notify: Option< unsafe extern "C" fn(program: cl_program, user_data: *mut c_void), >, _user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetProgramSpecializationConstant(_program: cl_program, _spec_id: cl_uint, _spec_size: usize, _spec_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}
