//! Command queues, and the commands that only order work: flush, finish, markers, barriers.
use super::args::{property_pairs, slice_arg, write_opt};
use super::info::InfoOut;
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::command::Command;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::event::Event;
use crate::core::queue::{flush_deferred, Queue};
use std::ffi::c_void;
use std::sync::Arc;

const SUPPORTED: cl_command_queue_properties =
    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as _;

fn create(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    properties_array: Vec<cl_queue_properties>,
) -> CLResult<cl_command_queue> {
    let c = Cl::<Context>::get(context)?;
    let d = Cl::<Device>::get(device)?;
    if c.device_index(&d).is_none() {
        return Err(CL_INVALID_DEVICE);
    }
    if properties & !SUPPORTED != 0 {
        return Err(CL_INVALID_VALUE);
    }
    let mut q = Queue::new(c, d, properties)?;
    q.properties_array = properties_array;
    Ok(Cl::new_handle(q))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    let body = || create(context, device, properties, Vec::new());
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// The OpenCL 2.0 form, accepted for host queues (what the ICD loaders route to it).
#[no_mangle]
pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    let body = || {
        let mut bits = 0;
        let mut list = Vec::new();
        // SAFETY: NULL or a 0-terminated (name, value) list, as the spec requires of the caller.
        for (name, value) in unsafe { property_pairs(properties) } {
            if list.chunks(2).any(|p: &[cl_queue_properties]| p[0] == name) {
                return Err(CL_INVALID_VALUE);
            }
            list.extend([name, value]);
            match name as u32 {
                CL_QUEUE_PROPERTIES => bits = value,
                // On-device queues (CL_QUEUE_SIZE, CL_QUEUE_ON_DEVICE) are OpenCL 2.0.
                CL_QUEUE_SIZE => return Err(CL_INVALID_QUEUE_PROPERTIES),
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        if bits & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) as cl_queue_properties != 0 {
            Cl::<Context>::get(context)?;
            return Err(CL_INVALID_QUEUE_PROPERTIES);
        }
        if !properties.is_null() {
            list.push(0);
        }
        create(context, device, bits, list)
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainCommandQueue(command_queue: cl_command_queue) -> cl_int {
    entry(|| Cl::<Queue>::retain(command_queue))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseCommandQueue(command_queue: cl_command_queue) -> cl_int {
    entry(|| {
        let q = Cl::<Queue>::get(command_queue)?;
        if q.ref_count() == 1 {
            // The spec's implicit flush: submitting is all a flush means here.
            flush_deferred();
        }
        Cl::<Queue>::release(command_queue)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetCommandQueueInfo(
    command_queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let q = Cl::<Queue>::get(command_queue)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_QUEUE_CONTEXT => out.value(q.context.handle()),
            CL_QUEUE_DEVICE => out.value(q.device.handle()),
            CL_QUEUE_REFERENCE_COUNT => out.value::<cl_uint>(q.ref_count()),
            CL_QUEUE_PROPERTIES => out.value(q.properties),
            CL_QUEUE_PROPERTIES_ARRAY => out.slice(&q.properties_array),
            // No device-side queues: no default one, and a host queue has no CL_QUEUE_SIZE (the
            // 3.0 spec: CL_INVALID_COMMAND_QUEUE, as command_queue is not a device queue).
            CL_QUEUE_DEVICE_DEFAULT => out.value::<cl_command_queue>(std::ptr::null_mut()),
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// OpenCL 1.0's way to change queue properties after creation, deprecated since 1.1: the
/// stream and its profiling clock are fixed when the queue is created.
#[no_mangle]
pub unsafe extern "C" fn clSetCommandQueueProperty(
    command_queue: cl_command_queue,
    properties: cl_command_queue_properties,
    _enable: cl_bool,
    old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    entry(|| {
        let q = Cl::<Queue>::get(command_queue)?;
        if properties & !SUPPORTED != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: old_properties is NULL or a cl_command_queue_properties, per the spec.
        unsafe { write_opt(old_properties, q.properties) };
        Err(CL_INVALID_OPERATION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clFlush(command_queue: cl_command_queue) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        flush_deferred();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clFinish(command_queue: cl_command_queue) -> cl_int {
    entry(|| Cl::<Queue>::get(command_queue)?.finish())
}

/// The checked wait list of an enqueue call.
///
/// # Safety
/// `list` holds `num` event handles, or is NULL with `num` 0.
pub unsafe fn wait_list(num: cl_uint, list: *const cl_event) -> CLResult<Vec<Arc<Cl<Event>>>> {
    // SAFETY: the caller's contract: list holds num event handles.
    let handles = unsafe { slice_arg(list, num as usize, CL_INVALID_EVENT_WAIT_LIST) }?;
    Cl::<Event>::get_list(handles).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)
}

/// The one path by which an enqueue call hands a command to core, once api has checked its
/// arguments: core submits `work` now or defers it behind unset user events (checking the wait
/// list's contexts), waits when the command is `blocking`, and the command's event is written
/// to `event` when the application asked for one. `host_done`: the host side is finished once
/// the work was issued (see `Command::host_done`).
///
/// # Safety
/// `event` is NULL or valid for writing a `cl_event`.
pub(super) unsafe fn submit(
    queue: &Arc<Cl<Queue>>,
    command_type: cl_command_type,
    waits: Vec<Arc<Cl<Event>>>,
    blocking: bool,
    host_done: bool,
    event: *mut cl_event,
    work: impl FnOnce(&Queue) -> CLResult<()> + Send + 'static,
) -> CLResult<()> {
    let cmd = Command { queue, command_type, waits, want_event: !event.is_null(), blocking, host_done };
    // SAFETY: the caller's contract: event is NULL or a cl_event.
    unsafe { hand_out(event, cmd.enqueue(work)?) };
    Ok(())
}

/// Gives the application the event of a command it asked for.
///
/// # Safety
/// `event_out` is NULL or valid for writing a `cl_event`.
pub unsafe fn hand_out(event_out: *mut cl_event, event: Option<Arc<Cl<Event>>>) {
    if let Some(e) = event {
        // SAFETY: the caller's contract: event_out is NULL or a cl_event.
        unsafe { write_opt(event_out, e.register()) };
    }
}

/// Enqueues a command that does no work of its own (markers, barriers): its completion is that
/// of everything before it on the in-order stream, plus its wait list.
///
/// # Safety
/// `event_wait_list` holds `num_events` handles (or is NULL with 0); `event` is NULL or writable.
unsafe fn enqueue_sync_point(
    command_queue: cl_command_queue,
    command_type: cl_command_type,
    waits: Vec<Arc<Cl<Event>>>,
    event: *mut cl_event,
) -> CLResult<()> {
    let q = Cl::<Queue>::get(command_queue)?;
    // SAFETY: the caller's contract: event is NULL or a cl_event.
    unsafe { submit(&q, command_type, waits, false, false, event, |_| Ok(())) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarker(command_queue: cl_command_queue, event: *mut cl_event) -> cl_int {
    entry(|| {
        if event.is_null() {
            Cl::<Queue>::get(command_queue)?;
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { enqueue_sync_point(command_queue, CL_COMMAND_MARKER, Vec::new(), event) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWaitForEvents(
    command_queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        if num_events == 0 || event_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: event_list holds num_events event handles, per the spec.
        let waits = unsafe { wait_list(num_events, event_list) }.map_err(|_| CL_INVALID_EVENT)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { enqueue_sync_point(command_queue, CL_COMMAND_BARRIER, waits, std::ptr::null_mut()) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrier(command_queue: cl_command_queue) -> cl_int {
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    entry(|| unsafe {
        enqueue_sync_point(command_queue, CL_COMMAND_BARRIER, Vec::new(), std::ptr::null_mut())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        // SAFETY: event_wait_list holds num_events_in_wait_list handles, per the spec.
        let waits = unsafe { wait_list(num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { enqueue_sync_point(command_queue, CL_COMMAND_MARKER, waits, event) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        // SAFETY: event_wait_list holds num_events_in_wait_list handles, per the spec.
        let waits = unsafe { wait_list(num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { enqueue_sync_point(command_queue, CL_COMMAND_BARRIER, waits, event) }
    })
}
