//! Events: waiting, status, callbacks, user events, profiling.
use super::args::slice_arg;
use super::info::InfoOut;
use crate::base::entry::{entry, entry_ret};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::event::Event;
use std::ffi::c_void;

#[no_mangle]
pub unsafe extern "C" fn clWaitForEvents(num_events: cl_uint, event_list: *const cl_event) -> cl_int {
    entry(|| {
        // SAFETY: event_list holds num_events event handles, per the spec.
        let handles = unsafe { slice_arg(event_list, num_events as usize, CL_INVALID_VALUE) }?;
        if handles.is_empty() {
            return Err(CL_INVALID_VALUE);
        }
        let events = Cl::<Event>::get_list(handles)?;
        if events.iter().any(|e| !std::sync::Arc::ptr_eq(&e.context, &events[0].context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        crate::core::queue::flush_deferred();
        let mut failed = false;
        for e in &events {
            failed |= e.wait() < 0;
        }
        if failed {
            Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        } else {
            Ok(())
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventInfo(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let e = Cl::<Event>::get(event)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_EVENT_COMMAND_QUEUE => {
                out.value(e.queue.as_ref().map_or(std::ptr::null_mut(), |q| q.handle()))
            }
            CL_EVENT_CONTEXT => out.value(e.context.handle()),
            CL_EVENT_COMMAND_TYPE => out.value::<cl_command_type>(e.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => out.value::<cl_int>(e.status()),
            CL_EVENT_REFERENCE_COUNT => out.value::<cl_uint>(e.ref_count()),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clRetainEvent(event: cl_event) -> cl_int {
    entry(|| Cl::<Event>::retain(event))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseEvent(event: cl_event) -> cl_int {
    entry(|| Cl::<Event>::release(event))
}

#[no_mangle]
pub unsafe extern "C" fn clGetEventProfilingInfo(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let e = Cl::<Event>::get(event)?;
        let profiled = e.queue.as_ref().is_some_and(|q| q.profiling());
        if !profiled {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let p = e.profile().ok_or(CL_PROFILING_INFO_NOT_AVAILABLE)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_PROFILING_COMMAND_QUEUED => out.value::<cl_ulong>(p.queued),
            CL_PROFILING_COMMAND_SUBMIT => out.value::<cl_ulong>(p.submit),
            CL_PROFILING_COMMAND_START => out.value::<cl_ulong>(p.start),
            CL_PROFILING_COMMAND_END => out.value::<cl_ulong>(p.end),
            // OpenCL 2.0: the command and its child commands complete; no device-side enqueue,
            // so no children: the end.
            CL_PROFILING_COMMAND_COMPLETE => out.value::<cl_ulong>(p.end),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        let e = Cl::<Event>::get(event)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        if ![CL_COMPLETE as cl_int, CL_RUNNING as cl_int, CL_SUBMITTED as cl_int]
            .contains(&command_exec_callback_type)
        {
            return Err(CL_INVALID_VALUE);
        }
        e.add_callback(command_exec_callback_type, f, user_data);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateUserEvent(context: cl_context, errcode_ret: *mut cl_int) -> cl_event {
    let body = || Ok(Cl::new_handle(Event::user(Cl::<Context>::get(context)?)));
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    entry(|| {
        let e = Cl::<Event>::get(event)?;
        if !e.is_user() {
            return Err(CL_INVALID_EVENT);
        }
        if execution_status > CL_COMPLETE as cl_int {
            return Err(CL_INVALID_VALUE);
        }
        if e.status() <= CL_COMPLETE as cl_int {
            // The status of a user event can be set only once.
            return Err(CL_INVALID_OPERATION);
        }
        e.set_status(execution_status);
        Ok(())
    })
}
