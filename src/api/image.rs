//! Images: creation (clCreateImage and the 1.1 forms), formats, clGetImageInfo, and the image
//! commands (read, write, copy, image<->buffer copies, fill, map). Argument checks and error
//! codes live here; storage and data movement are core::image.
use super::args::write_opt;
use super::info::InfoOut;
use super::memory::{
    buffer_arg, has, region_of, run, target, triple, valid_mem_flags, widens_access, ACCESS, HOST_ACCESS,
    HOST_PTR_FLAGS,
};
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::command_buffer::ReplayWork;
use crate::core::context::Context;
use crate::core::image::{Image, Layout, Shape};
use crate::core::image_format::{self as fmt, PixelFormat};
use crate::core::image_ops::{self as ci, End};
use crate::core::memory::{Mem, HOST_READ, HOST_WRITE};
use crate::core::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

const IMAGE_TYPES: [u32; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// The image behind a handle that must name one (CL_INVALID_MEM_OBJECT for buffers).
pub(super) fn image_arg(h: cl_mem) -> CLResult<Arc<Cl<Mem>>> {
    let m = Cl::<Mem>::get(h)?;
    if m.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

fn image(m: &Mem) -> CLResult<&Image> {
    m.image.as_deref().ok_or(CL_INVALID_MEM_OBJECT)
}

/// The flags of an image1d_buffer: access and host-access flags default to the buffer's and
/// may not widen them (CL_INVALID_VALUE); the host-pointer flags are the buffer's.
fn inherit_flags(flags: cl_mem_flags, b: cl_mem_flags) -> CLResult<cl_mem_flags> {
    if flags & HOST_PTR_FLAGS != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if widens_access(b, flags) {
        return Err(CL_INVALID_VALUE);
    }
    let access = if flags & ACCESS != 0 { flags & ACCESS } else { b & ACCESS };
    let host = if flags & HOST_ACCESS != 0 { flags & HOST_ACCESS } else { b & HOST_ACCESS };
    Ok(access | host | (b & HOST_PTR_FLAGS))
}

/// CL_INVALID_IMAGE_SIZE when the shape exceeds a device's image limits.
fn check_limits(c: &Context, s: &Shape) -> CLResult<()> {
    for d in &c.devices {
        let l = &d.image_limits;
        let ok = match s.ty {
            CL_MEM_OBJECT_IMAGE1D_BUFFER => s.width <= l.max_buffer,
            CL_MEM_OBJECT_IMAGE1D => s.width <= l.width_2d,
            CL_MEM_OBJECT_IMAGE1D_ARRAY => s.width <= l.width_2d && s.layers <= l.max_array,
            CL_MEM_OBJECT_IMAGE2D => s.width <= l.width_2d && s.height <= l.height_2d,
            CL_MEM_OBJECT_IMAGE2D_ARRAY => {
                s.width <= l.width_2d && s.height <= l.height_2d && s.layers <= l.max_array
            }
            _ => s.width <= l.size_3d[0] && s.height <= l.size_3d[1] && s.depth <= l.size_3d[2],
        };
        if !ok {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
    }
    Ok(())
}

/// clCreateImage after the context: every check of the spec, in its order of codes.
///
/// # Safety
/// The pointers are valid as clCreateImage's specification requires.
unsafe fn create_image(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    let c = Cl::<Context>::get(context)?;
    if !valid_mem_flags(flags) {
        return Err(CL_INVALID_VALUE);
    }
    if image_format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: non-NULL, a cl_image_format per the spec.
    let f = unsafe { *image_format };
    if !fmt::is_valid(f.image_channel_order, f.image_channel_data_type) {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    if image_desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // SAFETY: non-NULL, a cl_image_desc per the spec.
    let d = unsafe { *image_desc };
    // SAFETY: both union members are a cl_mem.
    let buffer = unsafe { d.__bindgen_anon_1.buffer };
    let ty = d.image_type;
    if !IMAGE_TYPES.contains(&ty) || d.num_mip_levels != 0 || d.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if ty == CL_MEM_OBJECT_IMAGE2D && !buffer.is_null() {
        // A 2D image from a buffer (cl_khr_image2d_from_buffer, optional in 3.0) is not offered:
        // CL_DEVICE_IMAGE_PITCH_ALIGNMENT is 0, and the 3.0 spec's code is this one.
        return Err(CL_INVALID_OPERATION);
    }
    let linear = ty == CL_MEM_OBJECT_IMAGE1D_BUFFER;
    if linear == buffer.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let two_d = matches!(ty, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D);
    let is_array = matches!(ty, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY);
    let three_d = ty == CL_MEM_OBJECT_IMAGE3D;
    let shape = Shape {
        ty: d.image_type,
        width: d.image_width,
        height: if two_d { d.image_height } else { 1 },
        depth: if three_d { d.image_depth } else { 1 },
        layers: if is_array { d.image_array_size } else { 1 },
    };
    if shape.width == 0 || shape.height == 0 || shape.depth == 0 || shape.layers == 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let pf: Option<PixelFormat> = fmt::lookup(f.image_channel_order, f.image_channel_data_type);
    let e = pf.map_or(1, |p| p.element_size());
    // Host pitches: 0 without a host pointer; with one, at least tight and whole pixels / rows.
    let tight = shape.tight(shape.extent(), e);
    let (row, slice) = (d.image_row_pitch, d.image_slice_pitch);
    let layout = if linear {
        // An image1d_buffer's pixels are its buffer's (tight): a row pitch given with the buffer
        // (the CTS's kernel_image_methods passes one) describes nothing and is not checked.
        tight
    } else if host_ptr.is_null() {
        if row != 0 || slice != 0 {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        tight
    } else {
        let row = if row == 0 { tight.row } else { row };
        if row < tight.row || !row.is_multiple_of(e) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let min_slice = if shape.is_1d_array() { row } else { row * shape.height };
        let slice = if slice == 0 || !(is_array || three_d) { min_slice } else { slice };
        if slice < min_slice || !slice.is_multiple_of(row) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        Layout { row, slice }
    };
    let (flags, buf) = if linear {
        let b = Cl::<Mem>::get(buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        if b.image.is_some() || !Arc::ptr_eq(&b.context, &c) {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        if !host_ptr.is_null() {
            return Err(CL_INVALID_HOST_PTR);
        }
        (inherit_flags(flags, b.flags)?, Some(b))
    } else {
        let needs_ptr = has(flags, CL_MEM_USE_HOST_PTR) || has(flags, CL_MEM_COPY_HOST_PTR);
        if needs_ptr == host_ptr.is_null() {
            return Err(CL_INVALID_HOST_PTR);
        }
        let flags = if flags & ACCESS == 0 { flags | CL_MEM_READ_WRITE as cl_mem_flags } else { flags };
        (flags, None)
    };
    let pf = pf.ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    check_limits(&c, &shape)?;
    if let Some(b) = &buf {
        if shape.width.checked_mul(e).is_none_or(|n| n > b.size) {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
    }
    let host = (!host_ptr.is_null()).then_some((host_ptr, layout));
    // SAFETY: host_ptr holds the image with its pitches as the flags require (the caller's
    // contract, checked above as far as it can be).
    let img = unsafe { Image::new(&c, flags, shape, pf, host) }?;
    let size = img.tight_size();
    let hp = if has(flags, CL_MEM_USE_HOST_PTR) { host_ptr as usize } else { 0 };
    Ok(Mem::new_image(c, flags, size, hp, buf.as_ref(), img).handle())
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    let body = || unsafe { create_image(context, flags, image_format, image_desc, host_ptr) };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

fn desc_of(ty: u32, w: usize, h: usize, d: usize, row: usize, slice: usize) -> cl_image_desc {
    cl_image_desc {
        image_type: ty as cl_mem_object_type,
        image_width: w,
        image_height: h,
        image_depth: d,
        image_array_size: 0,
        image_row_pitch: row,
        image_slice_pitch: slice,
        num_mip_levels: 0,
        num_samples: 0,
        __bindgen_anon_1: _cl_image_desc__bindgen_ty_1 { buffer: std::ptr::null_mut() },
    }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let d = desc_of(CL_MEM_OBJECT_IMAGE2D, image_width, image_height, 0, image_row_pitch, 0);
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    let body = || unsafe { create_image(context, flags, image_format, &d, host_ptr) };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let d = desc_of(
        CL_MEM_OBJECT_IMAGE3D,
        image_width,
        image_height,
        image_depth,
        image_row_pitch,
        image_slice_pitch,
    );
    // SAFETY: the entry point's own pointer arguments, valid per the spec.
    let body = || unsafe { create_image(context, flags, image_format, &d, host_ptr) };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// The OpenCL 3.0 form: no image property is supported, so only NULL or an empty list.
#[no_mangle]
pub unsafe extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let body = || {
        Cl::<Context>::get(context)?;
        // SAFETY: a 0-terminated list when non-NULL.
        unsafe { super::memory::check_mem_properties(properties) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let h = unsafe { create_image(context, flags, image_format, image_desc, host_ptr) }?;
        super::memory::record_mem_properties(h, properties);
        Ok(h)
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// The formats of core::image_format's table, the same for every image type and flag.
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
        let rw = CL_MEM_KERNEL_READ_AND_WRITE as cl_mem_flags;
        if !valid_mem_flags(flags & !rw)
            || !IMAGE_TYPES.contains(&image_type)
            || (num_entries == 0 && !image_formats.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        // No read-write images (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0): the 3.0 spec's answer
        // for CL_MEM_KERNEL_READ_AND_WRITE is then an empty set.
        let all = if flags & rw != 0 { Vec::new() } else { fmt::all() };
        if !image_formats.is_null() {
            for (i, f) in all.iter().take(num_entries as usize).enumerate() {
                // SAFETY: image_formats holds num_entries entries, per the spec.
                unsafe { image_formats.add(i).write(*f) };
            }
        }
        // SAFETY: num_image_formats is NULL or a cl_uint, per the spec.
        unsafe { write_opt(num_image_formats, all.len() as cl_uint) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetImageInfo(
    image_h: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let m = image_arg(image_h)?;
        let img = image(&m)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        let s = &img.shape;
        let ty = s.ty as u32;
        let two_d = matches!(ty, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D);
        match param_name {
            CL_IMAGE_FORMAT => out.value(cl_image_format {
                image_channel_order: img.format.order,
                image_channel_data_type: img.format.data_type,
            }),
            CL_IMAGE_ELEMENT_SIZE => out.value::<usize>(img.element_size()),
            CL_IMAGE_ROW_PITCH => out.value::<usize>(img.layout.row),
            CL_IMAGE_SLICE_PITCH => out.value::<usize>(
                if matches!(
                    ty,
                    CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
                ) {
                    img.layout.slice
                } else {
                    0
                },
            ),
            CL_IMAGE_WIDTH => out.value::<usize>(s.width),
            CL_IMAGE_HEIGHT => out.value::<usize>(if two_d { s.height } else { 0 }),
            CL_IMAGE_DEPTH => out.value::<usize>(if ty == CL_MEM_OBJECT_IMAGE3D { s.depth } else { 0 }),
            CL_IMAGE_ARRAY_SIZE => out.value::<usize>(if s.is_array() { s.layers } else { 0 }),
            CL_IMAGE_BUFFER => {
                let b = if img.has_arrays() { None } else { m.parent.as_ref() };
                out.value::<cl_mem>(b.map_or(std::ptr::null_mut(), |p| p.handle()))
            }
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => out.value::<cl_uint>(0),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// The host pitches of a read, write or map region: 0 means tight; smaller than tight is
/// CL_INVALID_VALUE.
fn host_layout(s: &Shape, region: [usize; 3], e: usize, row: usize, slice: usize) -> CLResult<Layout> {
    let tight = s.tight(region, e);
    let row = if row == 0 { tight.row } else { row };
    if row < tight.row {
        return Err(CL_INVALID_VALUE);
    }
    let min_slice = if s.is_1d_array() { row } else { row * region[1] };
    let slice = if slice == 0 || !(s.is_array() || s.ty == CL_MEM_OBJECT_IMAGE3D as cl_mem_object_type) {
        min_slice
    } else {
        slice
    };
    if slice < min_slice {
        return Err(CL_INVALID_VALUE);
    }
    Ok(Layout { row, slice })
}

#[allow(clippy::too_many_arguments)]
/// # Safety
/// The pointer arguments are valid as clEnqueueRead/WriteImage's specification requires.
unsafe fn read_write(
    command_queue: cl_command_queue,
    image_h: cl_mem,
    read: bool,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> CLResult<()> {
    Cl::<Queue>::get(command_queue)?;
    let m = image_arg(image_h)?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let t = unsafe { target(command_queue, &[&m], num, list) }?;
    let img = image(&m)?;
    if ptr.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let (origin, region) = (unsafe { triple(origin) }?, unsafe { region_of(region) }?);
    img.shape.check_region(origin, region)?;
    let e = img.element_size();
    let layout = host_layout(&img.shape, region, e, row_pitch, slice_pitch)?;
    m.check_host_access(if read { HOST_READ } else { HOST_WRITE })?;
    let ty = if read { CL_COMMAND_READ_IMAGE } else { CL_COMMAND_WRITE_IMAGE };
    if !img.has_arrays() {
        let (off, len) = (origin[0] * e, region[0] * e);
        return if read {
            // SAFETY: ptr holds the row until the command completes, per the spec.
            let work = unsafe { m.read(off, len, ptr, blocking != 0) };
            // SAFETY: the pointers passed on are covered by this function's own contract.
            unsafe { run(t, ty, blocking != 0, event, work) }
        } else {
            // SAFETY: as above.
            let work = unsafe { m.write(off, len, ptr) };
            // SAFETY: the pointers passed on are covered by this function's own contract.
            unsafe { run(t, ty, blocking != 0, event, work) }
        };
    }
    // SAFETY: ptr holds the region with these pitches until the command completes (the spec).
    let work = unsafe { ci::host_transfer(&m, read, origin, region, ptr, layout) };
    // SAFETY: the pointers passed on are covered by this function's own contract.
    unsafe { run(t, ty, blocking != 0, event, work) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            read_write(
                command_queue,
                image,
                true,
                blocking_read,
                origin,
                region,
                row_pitch,
                slice_pitch,
                ptr,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            read_write(
                command_queue,
                image,
                false,
                blocking_write,
                origin,
                region,
                input_row_pitch,
                input_slice_pitch,
                ptr as *mut c_void,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// A copy end for an image: linear memory for an image1d_buffer (at its pixel's byte), else
/// the arrays.
fn image_end(m: &Arc<Cl<Mem>>, img: &Image, origin: [usize; 3]) -> End {
    if img.has_arrays() {
        End::Image(m.clone(), origin)
    } else {
        End::Linear(m.clone(), origin[0] * img.element_size())
    }
}

/// True when two boxes of one image overlap.
fn boxes_overlap(a: [usize; 3], b: [usize; 3], region: [usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let (s, d) = (image_arg(src_image)?, image_arg(dst_image)?);
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&s, &d], num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_copy_image(&s, &d, src_origin, dst_origin, region) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_COPY_IMAGE, false, event, work) }
    })
}

/// clEnqueueCopyImage's checks after its handles and context, and its work (also recorded
/// into command buffers).
///
/// # Safety
/// The three pointers are NULL or hold three values each.
pub(super) unsafe fn checked_copy_image(
    s: &Arc<Cl<Mem>>,
    d: &Arc<Cl<Mem>>,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
) -> CLResult<ReplayWork> {
    let (si, di) = (image(s)?, image(d)?);
    if si.format != di.format {
        return Err(CL_IMAGE_FORMAT_MISMATCH);
    }
    // SAFETY: this function's contract.
    let (so, dor) = (unsafe { triple(src_origin) }?, unsafe { triple(dst_origin) }?);
    // SAFETY: as above.
    let region = unsafe { region_of(region) }?;
    si.shape.check_region(so, region)?;
    di.shape.check_region(dor, region)?;
    if Arc::ptr_eq(s, d) && boxes_overlap(so, dor, region) {
        return Err(CL_MEM_COPY_OVERLAP);
    }
    let e = si.element_size();
    if !si.has_arrays() && !di.has_arrays() {
        if s.same_storage(d) {
            let (a, b) = (s.offset + so[0] * e, d.offset + dor[0] * e);
            if a < b + region[0] * e && b < a + region[0] * e {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        return Ok(Box::new(Cl::<Mem>::copy(s, d, so[0] * e, dor[0] * e, region[0] * e)));
    }
    let shape = if si.has_arrays() { si.shape } else { di.shape };
    Ok(Box::new(ci::copy_work(image_end(s, si, so), image_end(d, di, dor), region, e, shape)))
}

/// clEnqueueCopyImageToBuffer (`to_buffer`) and clEnqueueCopyBufferToImage.
///
/// # Safety
/// The pointer arguments are valid as those entry points' specification requires.
#[allow(clippy::too_many_arguments)]
unsafe fn image_buffer(
    command_queue: cl_command_queue,
    image_h: cl_mem,
    buffer: cl_mem,
    to_buffer: bool,
    origin: *const usize,
    region: *const usize,
    offset: usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> CLResult<()> {
    Cl::<Queue>::get(command_queue)?;
    let (im, b) = if to_buffer {
        (image_arg(image_h)?, buffer_arg(buffer)?)
    } else {
        let b = buffer_arg(buffer)?;
        (image_arg(image_h)?, b)
    };
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let t = unsafe { target(command_queue, &[&im, &b], num, list) }?;
    let ty = if to_buffer { CL_COMMAND_COPY_IMAGE_TO_BUFFER } else { CL_COMMAND_COPY_BUFFER_TO_IMAGE };
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let work = unsafe { checked_image_buffer(&im, &b, to_buffer, origin, region, offset) }?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    unsafe { run(t, ty, false, event, work) }
}

/// The checks of clEnqueueCopyImageToBuffer (`to_buffer`) and clEnqueueCopyBufferToImage after
/// their handles and context, and their work (also recorded into command buffers).
///
/// # Safety
/// `origin` and `region` are NULL or hold three values each.
pub(super) unsafe fn checked_image_buffer(
    im: &Arc<Cl<Mem>>,
    b: &Arc<Cl<Mem>>,
    to_buffer: bool,
    origin: *const usize,
    region: *const usize,
    offset: usize,
) -> CLResult<ReplayWork> {
    let img = image(im)?;
    // SAFETY: this function's contract.
    let (origin, region) = (unsafe { triple(origin) }?, unsafe { region_of(region) }?);
    img.shape.check_region(origin, region)?;
    let e = img.element_size();
    let len = img.shape.tight(region, e).span(&img.shape, region, e);
    if offset.checked_add(len).is_none_or(|end| end > b.size) {
        return Err(CL_INVALID_VALUE);
    }
    if !img.has_arrays() {
        let io = origin[0] * e;
        if im.same_storage(b) {
            let (a, c) = (im.offset + io, b.offset + offset);
            if a < c + len && c < a + len {
                return Err(CL_MEM_COPY_OVERLAP);
            }
        }
        return Ok(if to_buffer {
            Box::new(Cl::<Mem>::copy(im, b, io, offset, len))
        } else {
            Box::new(Cl::<Mem>::copy(b, im, offset, io, len))
        });
    }
    let (i_end, b_end) = (End::Image(im.clone(), origin), End::Linear(b.clone(), offset));
    let (src, dst) = if to_buffer { (i_end, b_end) } else { (b_end, i_end) };
    Ok(Box::new(ci::copy_work(src, dst, region, e, img.shape)))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            image_buffer(
                command_queue,
                src_image,
                dst_buffer,
                true,
                src_origin,
                region,
                dst_offset,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            image_buffer(
                command_queue,
                dst_image,
                src_buffer,
                false,
                dst_origin,
                region,
                src_offset,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image_h: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        let m = image_arg(image_h)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let work = unsafe { checked_fill_image(&m, fill_color, origin, region) }?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe { run(t, CL_COMMAND_FILL_IMAGE, false, event, work) }
    })
}

/// clEnqueueFillImage's checks after its handles and context, and its work (the colour
/// converted now; also recorded into command buffers).
///
/// # Safety
/// `fill_color` is NULL or 16 readable bytes; `origin` and `region` NULL or three values each.
pub(super) unsafe fn checked_fill_image(
    m: &Arc<Cl<Mem>>,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
) -> CLResult<ReplayWork> {
    let img = image(m)?;
    if fill_color.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: this function's contract.
    let (origin, region) = (unsafe { triple(origin) }?, unsafe { region_of(region) }?);
    img.shape.check_region(origin, region)?;
    // SAFETY: a float4, int4 or uint4: 16 readable bytes.
    let color = unsafe { *(fill_color as *const [u8; 16]) };
    let pixel = fmt::fill_pixel(&img.format, &color);
    if !img.has_arrays() {
        let e = img.element_size();
        return Ok(Box::new(m.fill(&pixel, origin[0] * e, region[0] * e)));
    }
    Ok(Box::new(ci::fill_work(m, pixel, origin, region)))
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image_h: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    let body = || {
        Cl::<Queue>::get(command_queue)?;
        let m = image_arg(image_h)?;
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        let t = unsafe { target(command_queue, &[&m], num_events_in_wait_list, event_wait_list) }?;
        let img = image(&m)?;
        let known = (CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) as cl_map_flags;
        let inval = CL_MAP_WRITE_INVALIDATE_REGION as cl_map_flags;
        if map_flags & !known != 0 || (map_flags & inval != 0 && map_flags & !inval != 0) {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: as above.
        let (origin, region) = (unsafe { triple(origin) }?, unsafe { region_of(region) }?);
        img.shape.check_region(origin, region)?;
        let layered = img.shape.is_array() || img.shape.ty == CL_MEM_OBJECT_IMAGE3D as cl_mem_object_type;
        if image_row_pitch.is_null() || (layered && image_slice_pitch.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let reads = map_flags & CL_MAP_READ as cl_map_flags != 0;
        let writes = map_flags & (CL_MAP_WRITE as cl_map_flags | inval) != 0;
        m.check_host_access(if reads { HOST_READ } else { 0 } | if writes { HOST_WRITE } else { 0 })?;
        if has(m.flags, CL_MEM_HOST_NO_ACCESS) {
            return Err(CL_INVALID_OPERATION);
        }
        let e = img.element_size();
        if !img.has_arrays() {
            let (ptr, work) = m.map(&t.q, map_flags, origin[0] * e, region[0] * e)?;
            // SAFETY: image_row_pitch is non-NULL, image_slice_pitch NULL or a size_t.
            unsafe {
                image_row_pitch.write(img.layout.row);
                write_opt(image_slice_pitch, 0);
            }
            // SAFETY: the entry point's own pointer arguments, valid per the spec.
            return match unsafe { run(t, CL_COMMAND_MAP_IMAGE, blocking_map != 0, event, work) } {
                Ok(()) => Ok(ptr),
                Err(err) => {
                    if let Ok(undo) = m.unmap(ptr) {
                        drop(undo);
                    }
                    Err(err)
                }
            };
        }
        let (ptr, layout, work) = ci::map(&m, &t.q, map_flags, origin, region)?;
        let slice = if layered { layout.slice } else { 0 };
        // SAFETY: image_row_pitch is non-NULL, image_slice_pitch NULL or a size_t.
        unsafe {
            image_row_pitch.write(layout.row);
            write_opt(image_slice_pitch, slice);
        }
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        match unsafe { run(t, CL_COMMAND_MAP_IMAGE, blocking_map != 0, event, work) } {
            Ok(()) => Ok(ptr),
            Err(err) => {
                ci::forget_map(&m, ptr);
                Err(err)
            }
        }
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pitches_default_to_tight() {
        let s = Shape {
            ty: CL_MEM_OBJECT_IMAGE1D_ARRAY as cl_mem_object_type,
            width: 7,
            height: 1,
            depth: 1,
            layers: 3,
        };
        let l = host_layout(&s, [5, 2, 1], 4, 0, 0).unwrap();
        assert_eq!((l.row, l.slice), (20, 20));
        assert_eq!(host_layout(&s, [5, 2, 1], 4, 16, 0), Err(CL_INVALID_VALUE));
        let s3 = Shape {
            ty: CL_MEM_OBJECT_IMAGE3D as cl_mem_object_type,
            width: 7,
            height: 5,
            depth: 3,
            layers: 1,
        };
        let l = host_layout(&s3, [3, 2, 2], 2, 8, 0).unwrap();
        assert_eq!((l.row, l.slice), (8, 16));
    }
}
