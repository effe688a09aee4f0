//! cl_khr_command_buffer (0.9.8): the extension's entry points, reached through
//! clGetExtensionFunctionAddressForPlatform (and exported by name). Recording checks each
//! command as its clEnqueue* twin does and keeps its work (core/command_buffer.rs).
//! Image commands are recorded too but never captured into a graph (image transfers go through
//! CUDA arrays and stream synchronisations), nor are the SVM commands (clCommandSVMMemcpyKHR,
//! clCommandSVMMemFillKHR, 0.9.4). Kernel commands may be mutable (api/mutable_dispatch.rs).
//! No multi-device command buffers, no simultaneous use.
use super::args::{property_pairs, slice_arg, write_opt};
use super::image::{checked_copy_image, checked_fill_image, checked_image_buffer, image_arg};
use super::info::InfoOut;
use super::kernel::prepare_launch;
use super::memory::{buffer_arg, checked_copy, checked_copy_rect, checked_fill};
use super::mutable_dispatch as md;
use super::queue::{submit, wait_list};
use super::svm::{checked_svm_fill, checked_svm_memcpy};
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::command_buffer::{khr, CommandBuffer, MutableCommand, Recorded, ReplayWork};
use crate::core::fill::reduce_pattern;
use crate::core::kernel::Kernel;
use crate::core::memory::Mem;
use crate::core::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

/// Queue properties a command buffer's queue may have (CL_DEVICE_COMMAND_BUFFER_SUPPORTED_
/// QUEUE_PROPERTIES_KHR, 0.9.5 and later): out-of-order queues run in order, which every sync
/// point allows; profiling. (The CTS of provisional versions before 0.9.5 asked an OUT_OF_ORDER
/// capability bit instead, which 0.9.8 no longer has.)
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as _;
/// CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: none.
pub const REQUIRED_QUEUE_PROPERTIES: cl_command_queue_properties = 0;
/// CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: printf (ptxgen lowers it to CUDA's device-side
/// vprintf, which needs nothing of the host at launch, in a graph too); no device-side enqueue.
pub const CAPABILITIES: cl_bitfield = khr::CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR;

/// The extension's functions by name (clGetExtensionFunctionAddress[ForPlatform]).
pub fn function(name: &str) -> Option<*mut c_void> {
    Some(match name {
        "clCreateCommandBufferKHR" => clCreateCommandBufferKHR as *mut c_void,
        "clFinalizeCommandBufferKHR" => clFinalizeCommandBufferKHR as *mut c_void,
        "clRetainCommandBufferKHR" => clRetainCommandBufferKHR as *mut c_void,
        "clReleaseCommandBufferKHR" => clReleaseCommandBufferKHR as *mut c_void,
        "clEnqueueCommandBufferKHR" => clEnqueueCommandBufferKHR as *mut c_void,
        "clCommandBarrierWithWaitListKHR" => clCommandBarrierWithWaitListKHR as *mut c_void,
        "clCommandCopyBufferKHR" => clCommandCopyBufferKHR as *mut c_void,
        "clCommandCopyBufferRectKHR" => clCommandCopyBufferRectKHR as *mut c_void,
        "clCommandCopyBufferToImageKHR" => clCommandCopyBufferToImageKHR as *mut c_void,
        "clCommandCopyImageKHR" => clCommandCopyImageKHR as *mut c_void,
        "clCommandCopyImageToBufferKHR" => clCommandCopyImageToBufferKHR as *mut c_void,
        "clCommandFillBufferKHR" => clCommandFillBufferKHR as *mut c_void,
        "clCommandFillImageKHR" => clCommandFillImageKHR as *mut c_void,
        "clCommandNDRangeKernelKHR" => clCommandNDRangeKernelKHR as *mut c_void,
        "clGetCommandBufferInfoKHR" => clGetCommandBufferInfoKHR as *mut c_void,
        "clCommandSVMMemcpyKHR" => clCommandSVMMemcpyKHR as *mut c_void,
        "clCommandSVMMemFillKHR" => clCommandSVMMemFillKHR as *mut c_void,
        "clUpdateMutableCommandsKHR" => md::clUpdateMutableCommandsKHR as *mut c_void,
        "clGetMutableCommandInfoKHR" => md::clGetMutableCommandInfoKHR as *mut c_void,
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCreateCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties: *const cl_ulong,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    let body = || {
        // One queue: no cl_khr_command_buffer_multi_device.
        if num_queues != 1 || queues.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: queues holds num_queues handles, per the spec.
        let q = Cl::<Queue>::get(unsafe { *queues })?;
        let mut list = Vec::new();
        let mut flags = 0;
        // SAFETY: NULL or a 0-terminated (name, value) list, per the spec.
        for (name, value) in unsafe { property_pairs(properties) } {
            if list.chunks(2).any(|p: &[cl_ulong]| p[0] == name) {
                return Err(CL_INVALID_VALUE);
            }
            if name == khr::CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
                && value & !khr::CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR == 0
            {
                list.extend([name, value]);
                continue;
            }
            if name != khr::CL_COMMAND_BUFFER_FLAGS_KHR {
                return Err(CL_INVALID_VALUE);
            }
            let layered = khr::CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR
                | khr::CL_COMMAND_BUFFER_MUTABLE_KHR
                | khr::CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR;
            if value & !layered != 0 {
                return Err(CL_INVALID_VALUE);
            }
            flags |= value;
            list.extend([name, value]);
        }
        // Valid flags of the layered extensions cudacl does not offer (checked once the whole
        // list is known valid: a repeated name is CL_INVALID_VALUE first): simultaneous use,
        // device-side sync (multi-device). Mutable dispatch is offered.
        if flags & !khr::CL_COMMAND_BUFFER_MUTABLE_KHR != 0 {
            return Err(CL_INVALID_PROPERTY);
        }
        if !properties.is_null() {
            list.push(0);
        }
        // A queue's properties are checked where the buffer is enqueued (0.9.7 and later: a
        // buffer may be recorded against a queue it is never enqueued to).
        let mutable = flags & khr::CL_COMMAND_BUFFER_MUTABLE_KHR != 0;
        Ok(Cl::new_handle(CommandBuffer::new(q, list, mutable)))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    entry(|| Cl::<CommandBuffer>::retain(command_buffer))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    entry(|| {
        let cb = Cl::<CommandBuffer>::get(command_buffer)?;
        if cb.ref_count() == 1 {
            // The mutable-command handles go with the buffer.
            for mc in std::mem::take(&mut *crate::base::entry::lock(&cb.mutable_commands)) {
                let _ = Cl::<MutableCommand>::release(mc.handle());
            }
        }
        Cl::<CommandBuffer>::release(command_buffer)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clFinalizeCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    entry(|| Cl::<CommandBuffer>::get(command_buffer)?.finalize())
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCommandBufferKHR(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    command_buffer: cl_command_buffer_khr,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        let cb = Cl::<CommandBuffer>::get(command_buffer)?;
        if queues.is_null() != (num_queues == 0) || num_queues > 1 {
            return Err(CL_INVALID_VALUE);
        }
        let q = if queues.is_null() {
            cb.queue.clone()
        } else {
            // SAFETY: queues holds num_queues (1) handles, per the spec.
            let q = Cl::<Queue>::get(unsafe { *queues })?;
            if !Arc::ptr_eq(&q.context, &cb.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            // Compatible (0.9.7 and later): the same device; the properties may differ (an
            // in-order queue for a buffer recorded against an out-of-order one, and back).
            if !Arc::ptr_eq(&q.device, &cb.queue.device) {
                return Err(khr::CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
            }
            q
        };
        // The queue it runs on has only supported properties (and every required one: none,
        // REQUIRED_QUEUE_PROPERTIES is 0).
        if q.properties & !SUPPORTED_QUEUE_PROPERTIES != 0 {
            return Err(khr::CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
        }
        let commands = cb.commands().ok_or(CL_INVALID_OPERATION)?;
        // A mutable dispatch whose arguments are not all set yet.
        if commands.iter().any(|c| !c.ready) {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: event_wait_list holds num_events_in_wait_list handles, per the spec.
        let waits = unsafe { wait_list(num_events_in_wait_list, event_wait_list) }?;
        let work = move |q: &Queue| cb.replay(q, &commands);
        // SAFETY: event is NULL or a cl_event, per the spec.
        unsafe { submit(&q, khr::CL_COMMAND_COMMAND_BUFFER_KHR, waits, false, false, event, work) }
    })
}

/// The checks every clCommand*KHR call starts with: the buffer, no queue (one-queue buffers),
/// no properties, no mutable handle (no mutable dispatch), and the sync-point wait list.
/// Returns the buffer.
///
/// # Safety
/// `properties` is NULL or 0-terminated; `sync_points` holds `num_sync_points` values.
unsafe fn recording(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    num_sync_points: cl_uint,
    sync_points: *const cl_uint,
    mutable_handle: *mut *mut c_void,
) -> CLResult<Arc<Cl<CommandBuffer>>> {
    // SAFETY: this function's contract.
    let cb = unsafe { recording_kernel(command_buffer, command_queue, num_sync_points, sync_points) }?;
    // SAFETY: this function's contract.
    if !properties.is_null() && unsafe { *properties } != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if !mutable_handle.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(cb)
}

/// `recording` without the checks of the properties and the mutable handle, which a kernel
/// command may have (cl_khr_command_buffer_mutable_dispatch).
///
/// # Safety
/// `sync_points` holds `num_sync_points` values.
unsafe fn recording_kernel(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    num_sync_points: cl_uint,
    sync_points: *const cl_uint,
) -> CLResult<Arc<Cl<CommandBuffer>>> {
    let cb = Cl::<CommandBuffer>::get(command_buffer)?;
    if !command_queue.is_null() {
        return Err(CL_INVALID_COMMAND_QUEUE);
    }
    if cb.is_finalized() {
        return Err(CL_INVALID_OPERATION);
    }
    if sync_points.is_null() != (num_sync_points == 0) {
        return Err(khr::CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
    }
    // SAFETY: this function's contract.
    let waits = unsafe {
        slice_arg(sync_points, num_sync_points as usize, khr::CL_INVALID_SYNC_POINT_WAIT_LIST_KHR)
    }?;
    cb.check_sync_points(waits)?;
    Ok(cb)
}

/// Records `command` and hands out its sync point.
///
/// # Safety
/// `sync_point` is NULL or writable.
unsafe fn record(cb: &CommandBuffer, command: Option<Recorded>, sync_point: *mut cl_uint) -> CLResult<()> {
    let sp = cb.record(command)?;
    // SAFETY: this function's contract.
    unsafe { write_opt(sync_point, sp) };
    Ok(())
}

fn same_context(cb: &CommandBuffer, mems: &[&Arc<Cl<Mem>>]) -> CLResult<()> {
    if mems.iter().any(|m| !Arc::ptr_eq(&m.context, &cb.context)) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn clCommandBarrierWithWaitListKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, None, sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let s = buffer_arg(src_buffer)?;
        let d = buffer_arg(dst_buffer)?;
        same_context(&cb, &[&s, &d])?;
        let work = checked_copy(&s, &d, src_offset, dst_offset, size)?;
        let rec = Recorded {
            work: Arc::new(work),
            ready: true,
            mems: vec![(s, false), (d, true)],
            graphable: true,
        };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferRectKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let s = buffer_arg(src_buffer)?;
        let d = buffer_arg(dst_buffer)?;
        same_context(&cb, &[&s, &d])?;
        let pitches = [src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch];
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_copy_rect(&s, &d, src_origin, dst_origin, region, pitches) }?;
        let rec = Recorded {
            work: Arc::new(work),
            ready: true,
            mems: vec![(s, false), (d, true)],
            graphable: true,
        };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandFillBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let m = buffer_arg(buffer)?;
        same_context(&cb, &[&m])?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_fill(&m, pattern, pattern_size, offset, size) }?;
        // SAFETY: checked_fill accepted it: pattern_size readable bytes.
        let p = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
        // Patterns of more than 4 bytes are written from host memory first (memory::fill_on).
        let graphable = reduce_pattern(p).len() <= 4;
        let rec = Recorded { work: Arc::new(work), ready: true, mems: vec![(m, true)], graphable };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandNDRangeKernelKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording_kernel(
                command_buffer,
                command_queue,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
            )
        }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let (fields, props) = unsafe { md::kernel_properties(properties) }?;
        let k = Cl::<Kernel>::get(kernel)?;
        if !Arc::ptr_eq(&k.program.context, &cb.context) {
            return Err(CL_INVALID_CONTEXT);
        }
        let (o, g, l) = (global_work_offset, global_work_size, local_work_size);
        if !mutable_handle.is_null() {
            // SAFETY: the entry point's own pointer arguments, valid per the spec.
            let (rec, make) = unsafe { md::record_mutable(&cb, &k, fields, props, work_dim, o, g, l) }?;
            let (sp, index) = cb.record_at(Some(rec))?;
            let handle = make(index)?;
            // SAFETY: sync_point and mutable_handle are NULL or writable, per the spec.
            unsafe {
                write_opt(sync_point, sp);
                write_opt(mutable_handle, handle.cast());
            }
            return Ok(());
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let launch = unsafe { prepare_launch(&cb.queue, &k, work_dim, o, g, l) }?;
        let mems = md::launch_mems(&launch);
        let work = move |q: &Queue| launch.run(q);
        let rec = Recorded { work: Arc::new(work), ready: true, mems, graphable: true };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

/// Records an image command's work: never part of a graph (image transfers go through CUDA
/// arrays, staging and stream synchronisations).
///
/// # Safety
/// `sync_point` is NULL or writable.
unsafe fn record_image(cb: &CommandBuffer, work: ReplayWork, sync_point: *mut cl_uint) -> CLResult<()> {
    let rec = Recorded { work: Arc::from(work), ready: true, mems: Vec::new(), graphable: false };
    // SAFETY: this function's contract.
    unsafe { record(cb, Some(rec), sync_point) }
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyBufferToImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let b = buffer_arg(src_buffer)?;
        let im = image_arg(dst_image)?;
        same_context(&cb, &[&im, &b])?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_image_buffer(&im, &b, false, dst_origin, region, src_offset) }?;
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record_image(&cb, work, sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyImageToBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let im = image_arg(src_image)?;
        let b = buffer_arg(dst_buffer)?;
        same_context(&cb, &[&im, &b])?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_image_buffer(&im, &b, true, src_origin, region, dst_offset) }?;
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record_image(&cb, work, sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandCopyImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let (s, d) = (image_arg(src_image)?, image_arg(dst_image)?);
        same_context(&cb, &[&s, &d])?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_copy_image(&s, &d, src_origin, dst_origin, region) }?;
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record_image(&cb, work, sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandFillImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let m = image_arg(image)?;
        same_context(&cb, &[&m])?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_fill_image(&m, fill_color, origin, region) }?;
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record_image(&cb, work, sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandSVMMemcpyKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        let work = checked_svm_memcpy(dst_ptr, src_ptr, size)?;
        // SVM memory (managed or mapped host memory), or the host's: never in a graph.
        let rec = Recorded { work: Arc::new(work), ready: true, mems: Vec::new(), graphable: false };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCommandSVMMemFillKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_ulong,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_uint,
    sync_point: *mut cl_uint,
    mutable_handle: *mut *mut c_void,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let cb = unsafe {
            recording(
                command_buffer,
                command_queue,
                properties,
                num_sync_points_in_wait_list,
                sync_point_wait_list,
                mutable_handle,
            )
        }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_svm_fill(svm_ptr, pattern, pattern_size, size) }?;
        let rec = Recorded { work: Arc::new(work), ready: true, mems: Vec::new(), graphable: false };
        // SAFETY: sync_point is NULL or writable, per the spec.
        unsafe { record(&cb, Some(rec), sync_point) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetCommandBufferInfoKHR(
    command_buffer: cl_command_buffer_khr,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let cb = Cl::<CommandBuffer>::get(command_buffer)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            khr::CL_COMMAND_BUFFER_QUEUES_KHR => out.slice(&[cb.queue.handle()]),
            khr::CL_COMMAND_BUFFER_NUM_QUEUES_KHR => out.value::<cl_uint>(1),
            khr::CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => out.value::<cl_uint>(cb.ref_count()),
            khr::CL_COMMAND_BUFFER_STATE_KHR => out.value::<cl_uint>(match cb.commands() {
                None => khr::CL_COMMAND_BUFFER_STATE_RECORDING_KHR,
                // Deferred arguments of a mutable dispatch still unset: not executable yet.
                Some(c) if c.iter().any(|c| !c.ready) => khr::CL_COMMAND_BUFFER_STATE_FINALIZED_KHR,
                Some(_) => khr::CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR,
            }),
            khr::CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => out.slice(&cb.properties),
            khr::CL_COMMAND_BUFFER_CONTEXT_KHR => out.value(cb.context.handle()),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
