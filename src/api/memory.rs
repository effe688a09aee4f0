//! Buffers: creation, sub-buffers, info, destructor callbacks, and the memory commands
//! (read, write, copy, their rect forms, fill, map/unmap, migrate). Argument checks and error
//! codes live here; the data movement is core::memory.
use super::args::slice_arg;
use super::info::InfoOut;
use super::queue::{submit, wait_list};
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::memory::{Mem, BASE_ADDR_ALIGN, HOST_READ, HOST_WRITE};
use crate::core::queue::Queue;
use crate::core::rect::{rects_overlap, Pitched};
use crate::core::transfer::SMALL_READ;
use std::ffi::c_void;
use std::sync::Arc;

pub(super) const ACCESS: cl_mem_flags =
    (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) as cl_mem_flags;
pub(super) const HOST_PTR_FLAGS: cl_mem_flags =
    (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) as cl_mem_flags;
pub(super) const HOST_ACCESS: cl_mem_flags =
    (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) as cl_mem_flags;

pub(super) fn has(flags: cl_mem_flags, bit: u32) -> bool {
    flags & bit as cl_mem_flags != 0
}

/// Whether `flags` asks for an access its parent's `parent` flags forbid (a sub-buffer or an
/// image1d_buffer may narrow its buffer's device and host access, never widen it).
pub(super) fn widens_access(parent: cl_mem_flags, flags: cl_mem_flags) -> bool {
    let w = |f: cl_mem_flags, b: u32| has(f, b);
    (w(parent, CL_MEM_WRITE_ONLY) && (w(flags, CL_MEM_READ_WRITE) || w(flags, CL_MEM_READ_ONLY)))
        || (w(parent, CL_MEM_READ_ONLY) && (w(flags, CL_MEM_READ_WRITE) || w(flags, CL_MEM_WRITE_ONLY)))
        || (w(parent, CL_MEM_HOST_WRITE_ONLY) && w(flags, CL_MEM_HOST_READ_ONLY))
        || (w(parent, CL_MEM_HOST_READ_ONLY) && w(flags, CL_MEM_HOST_WRITE_ONLY))
        || (w(parent, CL_MEM_HOST_NO_ACCESS)
            && (w(flags, CL_MEM_HOST_READ_ONLY) || w(flags, CL_MEM_HOST_WRITE_ONLY)))
}

/// At most one bit of `group` set.
pub(super) fn at_most_one(flags: cl_mem_flags, group: cl_mem_flags) -> bool {
    (flags & group).count_ones() <= 1
}

/// Whether `flags` is a valid memory-object flag set: known bits only, at most one device access
/// and one host access flag, and USE_HOST_PTR alone of the host-pointer flags but COPY with ALLOC.
pub fn valid_mem_flags(flags: cl_mem_flags) -> bool {
    flags & !(ACCESS | HOST_PTR_FLAGS | HOST_ACCESS) == 0
        && at_most_one(flags, ACCESS)
        && at_most_one(flags, HOST_ACCESS)
        && !(has(flags, CL_MEM_USE_HOST_PTR)
            && (has(flags, CL_MEM_ALLOC_HOST_PTR) || has(flags, CL_MEM_COPY_HOST_PTR)))
}

/// The buffer behind a handle that must name one: CL_INVALID_MEM_OBJECT for images too.
pub(super) fn buffer_arg(h: cl_mem) -> CLResult<Arc<Cl<Mem>>> {
    let m = Cl::<Mem>::get(h)?;
    if m.image.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

/// # Safety
/// `host_ptr` is valid as clCreateBuffer's specification requires for `flags`.
unsafe fn create_buffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    let c = Cl::<Context>::get(context)?;
    if !valid_mem_flags(flags) {
        return Err(CL_INVALID_VALUE);
    }
    let max = c.devices.iter().map(|d| d.max_alloc).max().unwrap_or(0);
    if size == 0 || size as u64 > max {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let needs_ptr = has(flags, CL_MEM_USE_HOST_PTR) || has(flags, CL_MEM_COPY_HOST_PTR);
    if needs_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    let flags = if flags & ACCESS == 0 { flags | CL_MEM_READ_WRITE as cl_mem_flags } else { flags };
    // SAFETY: host_ptr is as the flags require: the caller's contract, and the checks above.
    Ok(unsafe { Mem::new_buffer(c, flags, size, host_ptr) }?.handle())
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    let body = || unsafe { create_buffer(context, flags, size, host_ptr) };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// The OpenCL 3.0 form: no buffer property is supported, so only NULL or an empty list.
/// The properties of clCreate{Buffer,Image}WithProperties: OpenCL 3.0 defines none for core
/// memory objects, so a list must be empty (its 0 alone); any name is CL_INVALID_PROPERTY.
///
/// # Safety
/// `properties` is NULL or a 0-terminated list.
pub(super) unsafe fn check_mem_properties(properties: *const cl_mem_properties) -> CLResult<()> {
    // SAFETY: the first entry of a non-NULL list exists (its terminator at least).
    if !properties.is_null() && unsafe { *properties } != 0 {
        return Err(CL_INVALID_PROPERTY);
    }
    Ok(())
}

/// Keeps a non-NULL (hence empty) property list of a new memory object for CL_MEM_PROPERTIES.
pub(super) fn record_mem_properties(h: cl_mem, properties: *const cl_mem_properties) {
    if !properties.is_null() {
        if let Ok(m) = Cl::<Mem>::get(h) {
            let _ = m.properties.set(vec![0]);
        }
    }
}

/// The buffer properties of clCreateBufferWithProperties: cl_ext_buffer_device_address's
/// CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (a cl_bool), each name at most once. Returns whether the
/// buffer must have fixed device addresses, and the list with its 0 (for CL_MEM_PROPERTIES).
///
/// # Safety
/// `properties` is NULL or a 0-terminated list of (name, value) pairs.
unsafe fn buffer_properties(
    properties: *const cl_mem_properties,
) -> CLResult<(bool, Vec<cl_mem_properties>)> {
    let mut addr = None;
    let mut list = Vec::new();
    if properties.is_null() {
        return Ok((false, list));
    }
    let mut p = properties;
    loop {
        // SAFETY: a 0-terminated list of pairs (the caller's contract): read up to its 0.
        let name = unsafe { *p };
        if name == 0 {
            break;
        }
        // SAFETY: every name is followed by its value.
        let value = unsafe { *p.add(1) };
        match name {
            n if n == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT as cl_mem_properties && addr.is_none() => {
                if value != CL_TRUE as cl_mem_properties && value != CL_FALSE as cl_mem_properties {
                    return Err(CL_INVALID_PROPERTY);
                }
                addr = Some(value == CL_TRUE as cl_mem_properties);
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
        list.extend([name, value]);
        // SAFETY: still inside the list (its 0 not reached yet).
        p = unsafe { p.add(2) };
    }
    list.push(0);
    Ok((addr.unwrap_or(false), list))
}

#[no_mangle]
pub unsafe extern "C" fn clCreateBufferWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        // SAFETY: a 0-terminated list when non-NULL.
        let (device_address, list) = unsafe { buffer_properties(properties) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let h = unsafe { create_buffer(context, flags, size, host_ptr) }?;
        let m = Cl::<Mem>::get(h)?;
        if !properties.is_null() {
            let _ = m.properties.set(list);
        }
        if device_address {
            if let Err(e) = m.fix_device_addresses() {
                // SAFETY: the handle just made, released once on this failure path.
                let _ = Cl::<Mem>::release(h);
                return Err(e);
            }
            c.note_addressable(&m);
        }
        Ok(h)
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        let parent = buffer_arg(buffer)?;
        if parent.parent.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let p = parent.flags;
        if flags & !(ACCESS | HOST_ACCESS) != 0
            || !at_most_one(flags, ACCESS)
            || !at_most_one(flags, HOST_ACCESS)
        {
            return Err(CL_INVALID_VALUE);
        }
        if widens_access(p, flags) {
            return Err(CL_INVALID_VALUE);
        }
        if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION as cl_buffer_create_type
            || buffer_create_info.is_null()
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: a cl_buffer_region for CL_BUFFER_CREATE_TYPE_REGION.
        let region = unsafe { &*(buffer_create_info as *const cl_buffer_region) };
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        if region.origin.checked_add(region.size).is_none_or(|end| end > parent.size) {
            return Err(CL_INVALID_VALUE);
        }
        if region.origin % BASE_ADDR_ALIGN != 0 {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        let access = if flags & ACCESS != 0 { flags & ACCESS } else { p & ACCESS };
        let host = if flags & HOST_ACCESS != 0 { flags & HOST_ACCESS } else { p & HOST_ACCESS };
        let inherited = access | host | (p & HOST_PTR_FLAGS);
        Ok(Mem::new_sub(&parent, inherited, region.origin, region.size).handle())
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    entry(|| Cl::<Mem>::retain(memobj))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    entry(|| Cl::<Mem>::release(memobj))
}

#[no_mangle]
pub unsafe extern "C" fn clGetMemObjectInfo(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let m = Cl::<Mem>::get(memobj)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_MEM_TYPE => out.value::<cl_mem_object_type>(
                m.image.as_ref().map_or(CL_MEM_OBJECT_BUFFER as cl_mem_object_type, |i| i.shape.ty),
            ),
            CL_MEM_FLAGS => out.value::<cl_mem_flags>(m.flags),
            CL_MEM_SIZE => out.value::<usize>(m.size),
            CL_MEM_HOST_PTR => out.value::<*mut c_void>(m.host_ptr as *mut c_void),
            CL_MEM_MAP_COUNT => out.value::<cl_uint>(m.map_count()),
            CL_MEM_REFERENCE_COUNT => out.value::<cl_uint>(m.ref_count()),
            CL_MEM_CONTEXT => out.value(m.context.handle()),
            CL_MEM_ASSOCIATED_MEMOBJECT => {
                out.value::<cl_mem>(m.parent.as_ref().map_or(std::ptr::null_mut(), |p| p.handle()))
            }
            CL_MEM_OFFSET => out.value::<usize>(if m.image.is_some() { 0 } else { m.offset }),
            CL_MEM_USES_SVM_POINTER => out.bool(m.uses_svm_pointer()),
            // cl_ext_buffer_device_address: one address per device of the context.
            CL_MEM_DEVICE_ADDRESS_EXT => {
                let v = m.device_addresses().ok_or(CL_INVALID_OPERATION)?;
                out.slice(&v.iter().map(|&a| a as cl_mem_device_address_ext).collect::<Vec<_>>())
            }
            CL_MEM_PROPERTIES => out.slice(m.properties.get().map_or(&[][..], |v| v.as_slice())),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    memobj: cl_mem,
    pfn_notify: Option<unsafe extern "C" fn(memobj: cl_mem, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        let m = Cl::<Mem>::get(memobj)?;
        m.add_destructor(pfn_notify.ok_or(CL_INVALID_VALUE)?, user_data);
        Ok(())
    })
}

/// The queue and buffer of a memory command, checked, with its wait list.
pub(super) struct Target {
    pub(super) q: Arc<Cl<Queue>>,
    pub(super) waits: Vec<Arc<Cl<crate::core::event::Event>>>,
}

/// # Safety
/// `list` holds `num` event handles, or is NULL with `num` 0.
pub(super) unsafe fn target(
    command_queue: cl_command_queue,
    mems: &[&Arc<Cl<Mem>>],
    num: cl_uint,
    list: *const cl_event,
) -> CLResult<Target> {
    let q = Cl::<Queue>::get(command_queue)?;
    for m in mems {
        if !Arc::ptr_eq(&m.context, &q.context) {
            return Err(CL_INVALID_CONTEXT);
        }
    }
    // SAFETY: the caller's contract: list holds num event handles.
    let waits = unsafe { wait_list(num, list) }?;
    Ok(Target { q, waits })
}

fn in_bounds(m: &Mem, offset: usize, len: usize) -> CLResult<()> {
    match offset.checked_add(len) {
        Some(end) if end <= m.size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// # Safety
/// `event` is NULL or valid for writing a `cl_event`.
pub(super) unsafe fn run(
    t: Target,
    command_type: u32,
    blocking: bool,
    event: *mut cl_event,
    work: impl FnOnce(&Queue) -> CLResult<()> + Send + 'static,
) -> CLResult<()> {
    // SAFETY: this function's contract.
    unsafe { run_rw(t, command_type, blocking, false, event, work) }
}

/// `run` for a command whose host side is finished once its work was issued when `host_done`
/// (see `Command::host_done`).
///
/// # Safety
/// `event` is NULL or valid for writing a `cl_event`.
unsafe fn run_rw(
    t: Target,
    command_type: u32,
    blocking: bool,
    host_done: bool,
    event: *mut cl_event,
    work: impl FnOnce(&Queue) -> CLResult<()> + Send + 'static,
) -> CLResult<()> {
    // SAFETY: the caller's contract: event is NULL or a cl_event.
    unsafe { submit(&t.q, command_type as cl_command_type, t.waits, blocking, host_done, event, work) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    offset: usize,
    cb: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let m = buffer_arg(buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        if ptr.is_null() || cb == 0 {
            return Err(CL_INVALID_VALUE);
        }
        in_bounds(&m, offset, cb)?;
        m.check_host_access(HOST_READ)?;
        // SAFETY: ptr has cb writable bytes until the read completes, per the spec.
        let work = unsafe { m.read(offset, cb, ptr, blocking_read != 0) };
        // A small blocking read waits in its work; a larger one into pageable memory is
        // complete when the driver's copy call returns.
        let done = blocking_read != 0 && (cb <= SMALL_READ || t.q.is_pageable(ptr, cb));
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run_rw(t, CL_COMMAND_READ_BUFFER, blocking_read != 0, done, event, work) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    offset: usize,
    cb: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let m = buffer_arg(buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        if ptr.is_null() || cb == 0 {
            return Err(CL_INVALID_VALUE);
        }
        in_bounds(&m, offset, cb)?;
        m.check_host_access(HOST_WRITE)?;
        // SAFETY: ptr has cb readable bytes until the write completes, per the spec.
        let work = unsafe { m.write(offset, cb, ptr) };
        // From pageable memory, the driver has taken the data when its copy call returns.
        let done = blocking_write != 0 && t.q.is_pageable(ptr, cb);
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run_rw(t, CL_COMMAND_WRITE_BUFFER, blocking_write != 0, done, event, work) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    cb: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let s = buffer_arg(src_buffer)?;
        let d = buffer_arg(dst_buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&s, &d], num_events_in_wait_list, event_wait_list) }?;
        let work = checked_copy(&s, &d, src_offset, dst_offset, cb)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_COPY_BUFFER, false, event, work) }
    })
}

/// clEnqueueCopyBuffer's checks of its range arguments, and its work (also recorded into
/// command buffers).
pub(super) fn checked_copy(
    s: &Arc<Cl<Mem>>,
    d: &Arc<Cl<Mem>>,
    src_offset: usize,
    dst_offset: usize,
    cb: usize,
) -> CLResult<impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static> {
    if cb == 0 {
        return Err(CL_INVALID_VALUE);
    }
    in_bounds(s, src_offset, cb)?;
    in_bounds(d, dst_offset, cb)?;
    if s.same_storage(d) {
        let a = s.offset + src_offset;
        let b = d.offset + dst_offset;
        if a < b + cb && b < a + cb {
            return Err(CL_MEM_COPY_OVERLAP);
        }
    }
    Ok(Cl::<Mem>::copy(s, d, src_offset, dst_offset, cb))
}

/// Reads a size_t[3] argument (CL_INVALID_VALUE when NULL).
///
/// # Safety
/// `p` holds three values.
pub(super) unsafe fn triple(p: *const usize) -> CLResult<[usize; 3]> {
    if p.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: the API passes size_t[3].
    Ok(unsafe { [*p, *p.add(1), *p.add(2)] })
}

/// # Safety
/// `p` is NULL or holds three values.
pub(super) unsafe fn region_of(p: *const usize) -> CLResult<[usize; 3]> {
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let r = unsafe { triple(p) }?;
    if r.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(r)
}

/// A rect side inside a buffer of `size` bytes.
fn buffer_side(
    origin: [usize; 3],
    region: [usize; 3],
    row: usize,
    slice: usize,
    size: usize,
) -> CLResult<Pitched> {
    let p = Pitched::new(origin, region, row, slice)?;
    match p.end(region) {
        Some(end) if end <= size => Ok(p),
        _ => Err(CL_INVALID_VALUE),
    }
}

#[allow(clippy::too_many_arguments)]
/// # Safety
/// The pointer arguments are valid as clEnqueueRead/WriteBufferRect's specification requires.
unsafe fn rect_host(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    read: bool,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> CLResult<()> {
    Cl::<Queue>::get(command_queue)?;
    let m = buffer_arg(buffer)?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let t = unsafe { target(command_queue, &[&m], num, list) }?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let region = unsafe { region_of(region) }?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let buf =
        buffer_side(unsafe { triple(buffer_origin) }?, region, buffer_row_pitch, buffer_slice_pitch, m.size)?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let host = Pitched::new(unsafe { triple(host_origin) }?, region, host_row_pitch, host_slice_pitch)?;
    host.end(region).ok_or(CL_INVALID_VALUE)?;
    m.check_host_access(if read { HOST_READ } else { HOST_WRITE })?;
    // SAFETY: ptr holds the host region until the command completes, per the spec.
    let work = unsafe { m.rect_host(read, buf, host, ptr, region) };
    let ty = if read { CL_COMMAND_READ_BUFFER_RECT } else { CL_COMMAND_WRITE_BUFFER_RECT };
    // SAFETY: the pointers passed on are covered by this function's own contract.
    unsafe { run(t, ty, blocking != 0, event, work) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            rect_host(
                command_queue,
                buffer,
                true,
                blocking_read,
                buffer_origin,
                host_origin,
                region,
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
                ptr,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            rect_host(
                command_queue,
                buffer,
                false,
                blocking_read,
                buffer_origin,
                host_origin,
                region,
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
                ptr as *mut c_void,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let s = buffer_arg(src_buffer)?;
        let d = buffer_arg(dst_buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&s, &d], num_events_in_wait_list, event_wait_list) }?;
        let pitches = [src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch];
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_copy_rect(&s, &d, src_origin, dst_origin, region, pitches) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_COPY_BUFFER_RECT, false, event, work) }
    })
}

/// clEnqueueCopyBufferRect's checks of its range arguments, and its work (also recorded into
/// command buffers). `pitches`: source row and slice, destination row and slice.
///
/// # Safety
/// The three pointers are NULL or hold three values each.
pub(super) unsafe fn checked_copy_rect(
    s: &Arc<Cl<Mem>>,
    d: &Arc<Cl<Mem>>,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    pitches: [usize; 4],
) -> CLResult<impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static> {
    // SAFETY: this function's contract.
    let region = unsafe { region_of(region) }?;
    // SAFETY: this function's contract.
    let (so, dor) = (unsafe { triple(src_origin) }?, unsafe { triple(dst_origin) }?);
    let sp = buffer_side(so, region, pitches[0], pitches[1], s.size)?;
    let dp = buffer_side(dor, region, pitches[2], pitches[3], d.size)?;
    if Arc::ptr_eq(s, d) {
        if sp.row != dp.row || sp.slice != dp.slice {
            return Err(CL_INVALID_VALUE);
        }
        if rects_overlap(so, dor, region, sp.row, sp.slice) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
    } else if s.same_storage(d) {
        // Sub-buffers of one buffer: compare the byte ranges they span.
        let (a0, a1) = (s.offset + sp.origin, s.offset + sp.end(region).ok_or(CL_INVALID_VALUE)?);
        let (b0, b1) = (d.offset + dp.origin, d.offset + dp.end(region).ok_or(CL_INVALID_VALUE)?);
        if a0 < b1 && b0 < a1 {
            return Err(CL_MEM_COPY_OVERLAP);
        }
    }
    Ok(Cl::<Mem>::copy_rect(s, d, sp, dp, region))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    cb: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let m = buffer_arg(buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_fill(&m, pattern, pattern_size, offset, cb) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_FILL_BUFFER, false, event, work) }
    })
}

/// clEnqueueFillBuffer's checks of its pattern and range, and its work (the pattern copied;
/// also recorded into command buffers).
///
/// # Safety
/// `pattern` is NULL or holds `pattern_size` bytes.
pub(super) unsafe fn checked_fill(
    m: &Arc<Cl<Mem>>,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    cb: usize,
) -> CLResult<impl Fn(&Queue) -> CLResult<()> + Send + Sync + 'static> {
    if pattern.is_null() || !matches!(pattern_size, 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128) {
        return Err(CL_INVALID_VALUE);
    }
    if !offset.is_multiple_of(pattern_size) || !cb.is_multiple_of(pattern_size) {
        return Err(CL_INVALID_VALUE);
    }
    in_bounds(m, offset, cb)?;
    // SAFETY: pattern_size readable bytes (this function's contract).
    let p = unsafe { std::slice::from_raw_parts(pattern as *const u8, pattern_size) };
    Ok(m.fill(p, offset, cb))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    cb: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let body = || {
        Cl::<Queue>::get(command_queue)?;
        let m = buffer_arg(buffer)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        let known = (CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) as cl_map_flags;
        let inval = CL_MAP_WRITE_INVALIDATE_REGION as cl_map_flags;
        if map_flags & !known != 0 || (map_flags & inval != 0 && map_flags & !inval != 0) {
            return Err(CL_INVALID_VALUE);
        }
        if cb == 0 {
            return Err(CL_INVALID_VALUE);
        }
        in_bounds(&m, offset, cb)?;
        let reads = map_flags & CL_MAP_READ as cl_map_flags != 0;
        let writes = map_flags & (CL_MAP_WRITE as cl_map_flags | inval) != 0;
        m.check_host_access(if reads { HOST_READ } else { 0 } | if writes { HOST_WRITE } else { 0 })?;
        if has(m.flags, CL_MEM_HOST_NO_ACCESS) {
            return Err(CL_INVALID_OPERATION);
        }
        let (ptr, work) = m.map(&t.q, map_flags, offset, cb)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        match unsafe { run(t, CL_COMMAND_MAP_BUFFER, blocking_map != 0, event, work) } {
            Ok(()) => Ok(ptr),
            Err(e) => {
                // The mapping never happened: forget it again.
                if let Ok(undo) = m.unmap(ptr) {
                    drop(undo);
                }
                Err(e)
            }
        }
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    command_queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let m = Cl::<Mem>::get(memobj)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        if m.array_image().is_some() {
            let work = crate::core::image_ops::unmap(&m, mapped_ptr)?;
            // SAFETY: the entry point's own pointer arguments, valid per the spec.
            return unsafe { run(t, CL_COMMAND_UNMAP_MEM_OBJECT, false, event, work) };
        }
        let work = m.unmap(mapped_ptr)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_UNMAP_MEM_OBJECT, false, event, work) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    command_queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        // SAFETY: mem_objects holds num_mem_objects handles, per the spec.
        let handles = unsafe { slice_arg(mem_objects, num_mem_objects as usize, CL_INVALID_VALUE) }?;
        if handles.is_empty() {
            return Err(CL_INVALID_VALUE);
        }
        let mems = Cl::<Mem>::get_list(handles)?;
        let known =
            (CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) as cl_mem_migration_flags;
        if flags & !known != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let refs: Vec<&Arc<Cl<Mem>>> = mems.iter().collect();
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &refs, num_events_in_wait_list, event_wait_list) }?;
        let to_host = flags & CL_MIGRATE_MEM_OBJECT_HOST as cl_mem_migration_flags != 0;
        let undefined = flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED as cl_mem_migration_flags != 0;
        type Work = Box<dyn FnOnce(&Queue) -> CLResult<()> + Send>;
        let works: Vec<Work> = mems
            .iter()
            .map(|m| -> Work {
                if m.array_image().is_some() {
                    Box::new(crate::core::image_ops::migrate(m, to_host, undefined))
                } else {
                    Box::new(m.migrate(to_host, undefined))
                }
            })
            .collect();
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            run(t, CL_COMMAND_MIGRATE_MEM_OBJECTS, false, event, move |q: &Queue| {
                for w in works {
                    w(q)?;
                }
                Ok(())
            })
        }
    })
}
