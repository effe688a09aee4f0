//! The optional OpenCL 3.0 features cudacl's devices report absent: shared virtual memory
//! (CL_DEVICE_SVM_CAPABILITIES 0), pipes (CL_DEVICE_PIPE_SUPPORT false) and device-side queues
//! (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES 0). Each call checks its handles and answers the code
//! the 3.0 specification gives for a device without the feature.
use crate::base::entry::{entry, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::queue::Queue;
use std::ffi::c_void;

fn unsupported_on_queue(queue: cl_command_queue) -> CLResult<()> {
    Cl::<Queue>::get(queue)?;
    Err(CL_INVALID_OPERATION)
}

/// No device supports SVM: the spec says clSVMAlloc then returns NULL.
#[no_mangle]
pub unsafe extern "C" fn clSVMAlloc(
    _arg1: cl_context,
    _arg2: cl_svm_mem_flags,
    _arg3: usize,
    _arg4: ::std::os::raw::c_uint,
) -> *mut ::std::os::raw::c_void {
    std::ptr::null_mut()
}

/// Nothing clSVMAlloc returned can be freed (it returned NULL).
#[no_mangle]
pub unsafe extern "C" fn clSVMFree(_arg1: cl_context, _arg2: *mut c_void) {}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMFree(
    arg1: cl_command_queue,
    _arg2: cl_uint,
    _arg3: *mut *mut c_void,
    _pfn_free_func: Option<
        unsafe extern "C" fn(
            arg1: cl_command_queue,
            arg2: cl_uint,
            arg3: *mut *mut c_void,
            arg4: *mut c_void,
        ),
    >,
    _arg4: *mut c_void,
    _arg5: cl_uint,
    _arg6: *const cl_event,
    _arg7: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(arg1))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    arg1: cl_command_queue,
    _arg2: cl_bool,
    _arg3: *mut c_void,
    _arg4: *const c_void,
    _arg5: usize,
    _arg6: cl_uint,
    _arg7: *const cl_event,
    _arg8: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(arg1))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    arg1: cl_command_queue,
    _arg2: *mut c_void,
    _arg3: *const c_void,
    _arg4: usize,
    _arg5: usize,
    _arg6: cl_uint,
    _arg7: *const cl_event,
    _arg8: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(arg1))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMap(
    arg1: cl_command_queue,
    _arg2: cl_bool,
    _arg3: cl_map_flags,
    _arg4: *mut c_void,
    _arg5: usize,
    _arg6: cl_uint,
    _arg7: *const cl_event,
    _arg8: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(arg1))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    arg1: cl_command_queue,
    _arg2: *mut c_void,
    _arg3: cl_uint,
    _arg4: *const cl_event,
    _arg5: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(arg1))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: cl_command_queue,
    _num_svm_pointers: cl_uint,
    _svm_pointers: *mut *const c_void,
    _sizes: *const usize,
    _flags: cl_mem_migration_flags,
    _num_events_in_wait_list: cl_uint,
    _event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| unsupported_on_queue(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clCreatePipe(
    context: cl_context,
    _flags: cl_mem_flags,
    _packet_size: cl_uint,
    _max_packets: cl_uint,
    _properties: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        Cl::<Context>::get(context)?;
        Err(CL_INVALID_OPERATION)
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { crate::base::entry::entry_ret(errcode_ret, body) }
}

/// No pipe can exist.
#[no_mangle]
pub unsafe extern "C" fn clGetPipeInfo(
    _arg1: cl_mem,
    _arg2: cl_pipe_info,
    _arg3: usize,
    _arg4: *mut c_void,
    _arg5: *mut usize,
) -> cl_int {
    CL_INVALID_MEM_OBJECT
}

#[no_mangle]
pub unsafe extern "C" fn clSetDefaultDeviceCommandQueue(
    context: cl_context,
    device: cl_device_id,
    _command_queue: cl_command_queue,
) -> cl_int {
    entry(|| {
        let c = Cl::<Context>::get(context)?;
        let d = Cl::<crate::core::device::Device>::get(device).map_err(|_| CL_INVALID_DEVICE)?;
        c.device_index(&d).ok_or(CL_INVALID_DEVICE)?;
        // No device-side queues (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES is 0).
        Err(CL_INVALID_OPERATION)
    })
}
