//! Shared virtual memory (coarse-grain buffer SVM), and the optional OpenCL 3.0 features
//! cudacl's devices report absent: pipes (CL_DEVICE_PIPE_SUPPORT false) and device-side queues
//! (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES 0), whose calls check their handles and answer the
//! code the 3.0 specification gives for a device without the feature.
//!
//! An SVM allocation is memory the host and every device of the context address at the same
//! pointer, which coarse-grain buffer SVM needs: the host dereferences the very pointer kernels
//! get (between clEnqueueSVMMap and clEnqueueSVMUnmap), so it cannot be plain device memory.
//! On devices with concurrent managed access it is managed memory (cuMemAllocManaged: pages move
//! to the GPU when kernels touch them and back when the host does, so kernels run at device
//! memory speed); elsewhere (Jetson, GPUs before Pascal, where the host may not touch managed
//! memory while any kernel runs) mapped page-locked memory, whose device address equals its
//! host address under unified addressing (on Jetson the same DRAM either way). Maps and unmaps
//! then move nothing: they order the host's accesses after / before the queue's commands, which
//! is what the coarse-grain rules ask of them. No fine-grain buffer or system SVM, no SVM
//! atomics (clSVMAlloc returns NULL for those flags).
use super::memory::{run, target};
use crate::base::entry::{entry, lock, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::{Context, SvmAlloc};
use crate::core::fill::{fill_on, reduce_pattern};
use crate::core::queue::Queue;
use crate::cuda::current::preserving_current_context;
use crate::cuda::memory::{copy_unified, prefetch_managed, SharedAlloc};
use std::ffi::c_void;

/// The largest alignment clSVMAlloc gives (more: NULL, as the spec allows).
pub const SVM_MAX_ALIGN: usize = 4096;
/// The alignment of a 0 request: the largest OpenCL C type (long16, double16).
const SVM_DEFAULT_ALIGN: usize = 128;

fn svm_alloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: u32,
) -> Option<*mut c_void> {
    let c = Cl::<Context>::get(context).ok()?;
    let access = (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) as cl_svm_mem_flags;
    // Fine-grain buffers and SVM atomics are not offered; other bits are not SVM flags.
    if flags & !access != 0 || (flags & access).count_ones() > 1 {
        return None;
    }
    if c.devices.is_empty() || !c.devices.iter().all(|d| d.svm) {
        return None;
    }
    let max = c.devices.iter().map(|d| d.max_alloc).min()?;
    if size == 0 || size as u64 > max {
        return None;
    }
    let align = if alignment == 0 { SVM_DEFAULT_ALIGN } else { alignment as usize };
    if !align.is_power_of_two() || align > SVM_MAX_ALIGN {
        return None;
    }
    // Room to align the start (the driver's allocations are 256-byte aligned, page-locked ones
    // page-aligned, but nothing promises more).
    let total = size.checked_add(align - 1)?;
    let managed = c.devices.iter().all(|d| d.concurrent_managed);
    let mem = preserving_current_context(|| {
        c.cuda.first()?.make_current().ok()?;
        if managed {
            SharedAlloc::managed(total).ok()
        } else {
            SharedAlloc::pinned(total).ok()
        }
    })?;
    let ptr = mem.ptr().next_multiple_of(align);
    lock(&c.svm).push(SvmAlloc { ptr, size, mem });
    Some(ptr as *mut c_void)
}

#[no_mangle]
pub unsafe extern "C" fn clSVMAlloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    std::panic::catch_unwind(|| svm_alloc(context, flags, size, alignment))
        .ok()
        .flatten()
        .unwrap_or(std::ptr::null_mut())
}

/// Frees an allocation of `c` at once (nothing may still use it: the spec's contract).
fn svm_free(c: &Context, ptr: usize) {
    let a = {
        let mut v = lock(&c.svm);
        v.iter().position(|a| a.ptr == ptr).map(|i| v.swap_remove(i))
    };
    if let Some(a) = a {
        preserving_current_context(|| {
            if let Some(cu) = c.cuda.first() {
                let _ = cu.make_current();
            }
            drop(a);
        });
    }
}

#[no_mangle]
pub unsafe extern "C" fn clSVMFree(context: cl_context, svm_pointer: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        if let Ok(c) = Cl::<Context>::get(context) {
            if !svm_pointer.is_null() {
                svm_free(&c, svm_pointer as usize);
            }
        }
    });
}

/// The application's SVM free callback (clEnqueueSVMFree).
type SvmFreeFn = unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void);

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMFree(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<SvmFreeFn>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        if (num_svm_pointers == 0) != svm_pointers.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let ptrs: Vec<usize> = if svm_pointers.is_null() {
            Vec::new()
        } else {
            // SAFETY: num_svm_pointers pointers (the spec's contract).
            unsafe { std::slice::from_raw_parts(svm_pointers, num_svm_pointers as usize) }
                .iter()
                .map(|&p| p as usize)
                .collect()
        };
        let (handle, data) = (command_queue as usize, user_data as usize);
        let ctx = t.q.context.clone();
        let work = move |q: &Queue| -> CLResult<()> {
            // After every earlier command of the queue (the memory may be in use until then).
            q.stream.synchronize().map_err(|_| CL_OUT_OF_RESOURCES)?;
            match pfn_free_func {
                Some(f) => {
                    let mut list: Vec<*mut c_void> = ptrs.iter().map(|&p| p as *mut c_void).collect();
                    // SAFETY: the application's callback with its queue, pointers and data.
                    unsafe {
                        f(
                            handle as cl_command_queue,
                            list.len() as cl_uint,
                            list.as_mut_ptr(),
                            data as *mut c_void,
                        )
                    };
                }
                None => ptrs.iter().for_each(|&p| svm_free(&ctx, p)),
            }
            Ok(())
        };
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_FREE, false, event, work) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemcpy(
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        let work = checked_svm_memcpy(dst_ptr, src_ptr, size)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_MEMCPY, blocking_copy != 0, event, work) }
    })
}

/// clEnqueueSVMMemcpy's checks of its pointers and its work (also recorded into command
/// buffers): the application keeps both ranges valid until the command is complete.
pub(super) fn checked_svm_memcpy(
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: usize,
) -> CLResult<impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static> {
    if dst_ptr.is_null() || src_ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let (dst, src) = (dst_ptr as usize, src_ptr as usize);
    if size > 0 && dst < src.saturating_add(size) && src < dst.saturating_add(size) {
        return Err(CL_MEM_COPY_OVERLAP);
    }
    // Either side may be SVM memory or the host's (unified addressing copies both).
    Ok(move |q: &Queue| -> CLResult<()> {
        if size == 0 {
            return Ok(());
        }
        // SAFETY: the application keeps both ranges valid until the command is complete.
        unsafe { copy_unified(&q.stream, dst, src, size) }.map_err(|e| e.into())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMemFill(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_svm_fill(svm_ptr, pattern, pattern_size, size) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_MEMFILL, false, event, work) }
    })
}

/// clEnqueueSVMMemFill's checks and its work (the pattern copied; also recorded into command
/// buffers).
///
/// # Safety
/// `pattern` is NULL or holds `pattern_size` bytes.
pub(super) unsafe fn checked_svm_fill(
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
) -> CLResult<impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static> {
    if svm_ptr.is_null() || pattern.is_null() || !matches!(pattern_size, 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128) {
        return Err(CL_INVALID_VALUE);
    }
    if !(svm_ptr as usize).is_multiple_of(pattern_size) || !size.is_multiple_of(pattern_size) {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: pattern_size readable bytes (this function's contract).
    let p = reduce_pattern(unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) });
    let dst = svm_ptr as u64;
    Ok(move |q: &Queue| -> CLResult<()> {
        if size == 0 {
            return Ok(());
        }
        fill_on(&q.stream, dst, &p, size)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMap(
    command_queue: cl_command_queue,
    blocking_map: cl_bool,
    flags: cl_map_flags,
    svm_ptr: *mut c_void,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        let known = (CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) as cl_map_flags;
        let inval = CL_MAP_WRITE_INVALIDATE_REGION as cl_map_flags;
        if svm_ptr.is_null()
            || size == 0
            || flags & !known != 0
            || (flags & inval != 0 && flags & !inval != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        // The host addresses the memory in place: the map only orders the host's accesses after
        // the queue's earlier commands (a blocking map returns once they are complete).
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_MAP, blocking_map != 0, event, |_: &Queue| Ok(())) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMUnmap(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        if svm_ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // The host's writes are in the memory itself: later commands see them.
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_UNMAP, false, event, |_: &Queue| Ok(())) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[], num_events_in_wait_list, event_wait_list) }?;
        let known =
            (CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) as cl_mem_migration_flags;
        if num_svm_pointers == 0 || svm_pointers.is_null() || flags & !known != 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: num_svm_pointers pointers (the spec's contract).
        let ptrs = unsafe { std::slice::from_raw_parts(svm_pointers, num_svm_pointers as usize) };
        let ctx = &t.q.context;
        let mut managed = Vec::new();
        for (i, &p) in ptrs.iter().enumerate() {
            // SAFETY: `sizes` is NULL or has num_svm_pointers entries (the spec's contract).
            let len = if sizes.is_null() { 0 } else { unsafe { *sizes.add(i) } };
            let p = p as usize;
            let Some((base, size)) = ctx.svm_at(p, len).filter(|_| p != 0) else {
                return Err(CL_INVALID_VALUE);
            };
            // A size of 0: from the pointer to the end of its allocation.
            if ctx.svm_managed_at(p, len).is_some() {
                managed.push((p, if len == 0 { base + size - p } else { len }));
            }
        }
        // Managed memory is prefetched to the queue's device (or the host); mapped page-locked
        // memory never moves: for it the command only keeps the queue's order.
        let to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST as cl_mem_migration_flags != 0;
        let work = move |q: &Queue| -> CLResult<()> {
            let dst = if to_host { -1 } else { q.device.cu };
            for &(p, n) in &managed {
                // A hint: pages would move on first use anyway.
                let _ = prefetch_managed(&q.stream, p as u64, n, dst);
            }
            Ok(())
        };
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_SVM_MIGRATE_MEM, false, event, work) }
    })
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
