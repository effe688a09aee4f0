//! PLACEHOLDER: being implemented (kernel). Every entry point answers CL_INVALID_OPERATION for now.
#![allow(unused_imports)]
use super::entry::{entry, entry_ret};
use crate::cl::*;
use std::ffi::c_void;

#[no_mangle]
pub extern "C" fn clCreateKernel(_program: cl_program, _kernel_name: *const ::std::os::raw::c_char, _errcode_ret: *mut cl_int) -> cl_kernel {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clCreateKernelsInProgram(_program: cl_program, _num_kernels: cl_uint, _kernels: *mut cl_kernel, _num_kernels_ret: *mut cl_uint) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clCloneKernel(_source_kernel: cl_kernel, _errcode_ret: *mut cl_int) -> cl_kernel {
    entry_ret(_errcode_ret, || Err(CL_INVALID_OPERATION))
}

#[no_mangle]
pub extern "C" fn clRetainKernel(_kernel: cl_kernel) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clReleaseKernel(_kernel: cl_kernel) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetKernelArg(_kernel: cl_kernel, _arg_index: cl_uint, _arg_size: usize, _arg_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetKernelArgSVMPointer(_arg1: cl_kernel, _arg2: cl_uint, _arg3: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clSetKernelExecInfo(_arg1: cl_kernel, _arg2: cl_kernel_exec_info, _arg3: usize, _arg4: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetKernelInfo(_kernel: cl_kernel, _param_name: cl_kernel_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetKernelWorkGroupInfo(_kernel: cl_kernel, _device: cl_device_id, _param_name: cl_kernel_work_group_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetKernelArgInfo(_kernel: cl_kernel, _arg_indx: cl_uint, _param_name: cl_kernel_arg_info, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clGetKernelSubGroupInfo(_kernel: cl_kernel, _device: cl_device_id, _param_name: cl_kernel_sub_group_info, _input_value_size: usize, _input_value: *const c_void, _param_value_size: usize, _param_value: *mut c_void, _param_value_size_ret: *mut usize) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueNDRangeKernel(_command_queue: cl_command_queue, _kernel: cl_kernel, _work_dim: cl_uint, _global_work_offset: *const usize, _global_work_size: *const usize, _local_work_size: *const usize, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueTask(_command_queue: cl_command_queue, _kernel: cl_kernel, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

#[no_mangle]
pub extern "C" fn clEnqueueNativeKernel(_command_queue: cl_command_queue, _user_func: Option<unsafe extern "C" fn(arg1: *mut c_void)>, _args: *mut c_void, _cb_args: usize, _num_mem_objects: cl_uint, _mem_list: *const cl_mem, _args_mem_loc: *mut *const c_void, _num_events_in_wait_list: cl_uint, _event_wait_list: *const cl_event, _event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}
