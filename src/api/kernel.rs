//! Kernels: creation, arguments, queries, and the NDRange launch.
use super::args::{c_str, write_opt};
use super::info::InfoOut;
use super::kernel_args::set_kernel_arg;
use super::queue::{submit, wait_list};
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::device::Device;
use crate::core::kernel::{sub_groups, Kernel, Launch};
use crate::core::program::Program;
use crate::core::queue::Queue;
use ptxgen::{AccessQualifier, AddressQualifier};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

#[no_mangle]
pub unsafe extern "C" fn clCreateKernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    let body = || {
        let p = Cl::<Program>::get(program)?;
        if kernel_name.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: kernel_name is NULL or a NUL-terminated string, per the spec.
        let name = unsafe { c_str(kernel_name) }.ok_or(CL_INVALID_KERNEL_NAME)?;
        Ok(Cl::new_handle(Kernel::new(p, name)?))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        let exe = p.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let n = exe.kernels.len();
        if !kernels.is_null() {
            if (num_kernels as usize) < n {
                return Err(CL_INVALID_VALUE);
            }
            let mut made = Vec::with_capacity(n);
            for k in &exe.kernels {
                made.push(Kernel::new(p.clone(), &k.name)?);
            }
            for (i, k) in made.into_iter().enumerate() {
                // SAFETY: the caller gave num_kernels >= n slots.
                unsafe { kernels.add(i).write(Cl::new_handle(k)) };
            }
        }
        // SAFETY: num_kernels_ret is NULL or a cl_uint, per the spec.
        unsafe { write_opt(num_kernels_ret, n as cl_uint) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCloneKernel(source_kernel: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    let body = || {
        let k = Cl::<Kernel>::get(source_kernel)?;
        Ok(Cl::new_handle(k.clone_kernel()?))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    entry(|| Cl::<Kernel>::retain(kernel))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    entry(|| Cl::<Kernel>::release(kernel))
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        // SAFETY: arg_value is NULL or arg_size readable bytes, per the API.
        unsafe { set_kernel_arg(&k, arg_index, arg_size, arg_value) }
    })
}

/// OpenCL 2.0 SVM: cudacl reports no SVM capabilities.
/// Coarse-grain buffer SVM: a pointer into an allocation of clSVMAlloc (or NULL) as a `__global`
/// or `__constant` pointer argument; the kernel gets the pointer itself.
#[no_mangle]
pub unsafe extern "C" fn clSetKernelArgSVMPointer(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: *const c_void,
) -> cl_int {
    entry(|| set_svm_arg(&**Cl::<Kernel>::get(kernel)?, arg_index, arg_value))
}

/// cl_ext_buffer_device_address: a device address inside a buffer made with
/// CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (or inside SVM memory, or 0) as a `__global` or
/// `__constant` pointer argument, passed to the kernel as is; the buffer it lies in is kept
/// coherent on the launching device as a buffer argument would be.
#[no_mangle]
pub unsafe extern "C" fn clSetKernelArgDevicePointerEXT(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_value: cl_mem_device_address_ext,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        let ctx = &k.program.context;
        // cl_ext_buffer_device_address: CL_INVALID_ARG_INDEX for an argument that is not a
        // pointer to global (or constant) memory.
        let a = k.shape.info.args.get(arg_index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
        if !matches!(a.kind, ptxgen::ArgKind::GlobalPtr | ptxgen::ArgKind::ConstantPtr) {
            return Err(CL_INVALID_ARG_INDEX);
        }
        if arg_value == 0 {
            return k.set_arg_pointer(arg_index, 0, None);
        }
        if let Some(m) = ctx.addressable_at(arg_value, 0) {
            return k.set_arg_pointer(arg_index, arg_value, Some(&m));
        }
        if ctx.svm_at(arg_value as usize, 0).is_some() {
            return k.set_arg_pointer(arg_index, arg_value, None);
        }
        Err(CL_INVALID_ARG_VALUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn clSetKernelExecInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        // SAFETY: this entry point's contract.
        unsafe { set_exec_info(&k, param_name, param_value_size, param_value) }
    })
}

/// clSetKernelExecInfo's checks and effect on `k` (also a mutable dispatch's exec info update).
///
/// # Safety
/// `param_value` is NULL or has `param_value_size` readable bytes.
pub(super) unsafe fn set_exec_info(
    k: &Kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: usize,
    param_value: *const c_void,
) -> CLResult<()> {
    let ctx = &k.program.context;
    let svm = ctx.devices.iter().any(|d| d.svm);
    match param_name {
        // SVM memory needs nothing done before a launch (one pointer on both sides, made
        // coherent at kernel boundaries by the driver): the list is only checked.
        CL_KERNEL_EXEC_INFO_SVM_PTRS => {
            if !svm {
                return Err(CL_INVALID_OPERATION);
            }
            // A size of 0 with NULL unsets the list set before (OpenCL 2.0's clSetKernelExecInfo).
            let word = std::mem::size_of::<*const c_void>();
            if param_value.is_null() != (param_value_size == 0) || !param_value_size.is_multiple_of(word) {
                return Err(CL_INVALID_VALUE);
            }
            Ok(())
        }
        CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
            if param_value.is_null() || param_value_size != std::mem::size_of::<cl_bool>() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: a cl_bool (size checked).
            let on = unsafe { *(param_value as *const cl_bool) } != CL_FALSE;
            // No device has fine-grain system SVM.
            if on {
                Err(CL_INVALID_OPERATION)
            } else {
                Ok(())
            }
        }
        CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT => {
            let word = std::mem::size_of::<cl_mem_device_address_ext>();
            if param_value.is_null() || param_value_size == 0 || !param_value_size.is_multiple_of(word) {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: param_value_size bytes of addresses (checked to be whole ones).
            let addrs = unsafe {
                std::slice::from_raw_parts(
                    param_value as *const cl_mem_device_address_ext,
                    param_value_size / word,
                )
            };
            // The buffers behind them (addresses in SVM memory or elsewhere need nothing).
            let mems: Vec<_> = addrs.iter().filter_map(|&a| ctx.addressable_at(a, 0)).collect();
            k.set_indirect(&mems);
            Ok(())
        }
        _ => Err(CL_INVALID_VALUE),
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_KERNEL_FUNCTION_NAME => out.str(&k.shape.info.name),
            CL_KERNEL_NUM_ARGS => out.value::<cl_uint>(k.num_args() as cl_uint),
            CL_KERNEL_REFERENCE_COUNT => out.value::<cl_uint>(k.ref_count()),
            CL_KERNEL_CONTEXT => out.value(k.program.context.handle()),
            CL_KERNEL_PROGRAM => out.value(k.program.handle()),
            CL_KERNEL_ATTRIBUTES => out.str(&k.shape.info.attributes),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// The index in the context of the device a per-device query is about (NULL allowed when the
/// program has a single device).
fn query_device(k: &Kernel, device: cl_device_id) -> CLResult<usize> {
    let ctx = &k.program.context;
    if device.is_null() {
        if k.program.devices.len() != 1 {
            return Err(CL_INVALID_DEVICE);
        }
        return ctx.device_index(&k.program.devices[0]).ok_or(CL_INVALID_DEVICE);
    }
    let d = Cl::<Device>::get(device)?;
    k.program.device_pos(&d).ok_or(CL_INVALID_DEVICE)?;
    ctx.device_index(&d).ok_or(CL_INVALID_DEVICE)
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        let dev = query_device(&k, device)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        let d = &k.program.context.devices[dev];
        let f = k.shape.funcs.get(dev).and_then(|f| f.as_ref());
        match param_name {
            // Only for custom devices and built-in kernels.
            CL_KERNEL_GLOBAL_WORK_SIZE => Err(CL_INVALID_VALUE),
            CL_KERNEL_WORK_GROUP_SIZE => {
                let f = f.ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
                out.value::<usize>(f.max_threads as usize)
            }
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                let r = k.shape.info.reqd_work_group_size.unwrap_or([0; 3]);
                out.slice(&[r[0] as usize, r[1] as usize, r[2] as usize])
            }
            CL_KERNEL_LOCAL_MEM_SIZE => out.value::<cl_ulong>(k.local_mem_size(dev)),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => out.value::<usize>(d.warp_size as usize),
            CL_KERNEL_PRIVATE_MEM_SIZE => {
                let f = f.ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
                out.value::<cl_ulong>(f.private_bytes as cl_ulong)
            }
            // cl_intel_required_subgroup_size: what spills go to is the function's local memory,
            // which CUDA reports together with its private arrays.
            CL_KERNEL_SPILL_MEM_SIZE_INTEL => {
                let f = f.ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
                out.value::<cl_ulong>(f.private_bytes as cl_ulong)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    arg_indx: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        let a = k.shape.info.args.get(arg_indx as usize).ok_or(CL_INVALID_ARG_INDEX)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        let known = matches!(
            param_name,
            CL_KERNEL_ARG_ADDRESS_QUALIFIER
                | CL_KERNEL_ARG_ACCESS_QUALIFIER
                | CL_KERNEL_ARG_TYPE_NAME
                | CL_KERNEL_ARG_TYPE_QUALIFIER
                | CL_KERNEL_ARG_NAME
        );
        if !known {
            return Err(CL_INVALID_VALUE);
        }
        if !k.shape.arg_info_available {
            return Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        }
        match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => {
                out.value::<cl_kernel_arg_address_qualifier>(match a.address_qualifier {
                    AddressQualifier::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                    AddressQualifier::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                    AddressQualifier::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                    AddressQualifier::Private => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                })
            }
            CL_KERNEL_ARG_ACCESS_QUALIFIER => {
                out.value::<cl_kernel_arg_access_qualifier>(match a.access_qualifier {
                    AccessQualifier::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                    AccessQualifier::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                    AccessQualifier::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                    AccessQualifier::None => CL_KERNEL_ARG_ACCESS_NONE,
                })
            }
            CL_KERNEL_ARG_TYPE_NAME => out.str(&a.type_name),
            CL_KERNEL_ARG_TYPE_QUALIFIER => out.value::<cl_kernel_arg_type_qualifier>(a.type_qualifier as _),
            _ => out.str(&a.name),
        }
    })
}

/// OpenCL 2.1 / cl_khr_subgroups sub-group queries (also clGetKernelSubGroupInfoKHR, through
/// clGetExtensionFunctionAddress). A sub-group is a warp of 32 work-items of consecutive linear
/// local id (ptxgen's subgroups.cl), so the answers follow from the work-group size alone.
#[no_mangle]
pub unsafe extern "C" fn clGetKernelSubGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: usize,
    input_value: *const c_void,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let k = Cl::<Kernel>::get(kernel)?;
        let dev = query_device(&k, device)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        let word = std::mem::size_of::<usize>();
        // The local work size given as input: 1 to 3 size_t, their product (saturated).
        let local_items = || -> CLResult<u64> {
            let n = input_value_size / word;
            if input_value.is_null() || !input_value_size.is_multiple_of(word) || !(1..=3).contains(&n) {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: input_value holds input_value_size bytes, per the spec.
            let v = unsafe { std::slice::from_raw_parts(input_value as *const usize, n) };
            Ok(v.iter().fold(1u64, |p, &x| p.saturating_mul(x as u64)))
        };
        let f = k.shape.funcs.get(dev).and_then(|f| f.as_ref()).ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let reqd = k.shape.info.reqd_work_group_size;
        match param_name {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
                out.value::<usize>(sub_groups::max_size(local_items()?) as usize)
            }
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
                out.value::<usize>(sub_groups::count(local_items()?) as usize)
            }
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                if input_value.is_null() || input_value_size != word {
                    return Err(CL_INVALID_VALUE);
                }
                // SAFETY: input_value holds one size_t (checked size), per the spec.
                let wanted = unsafe { *(input_value as *const usize) } as u64;
                // As many dimensions as the output array has room for (3 for a size query).
                let dims = if param_value.is_null() { 3 } else { (param_value_size / word).min(3) };
                if dims == 0 {
                    return Err(CL_INVALID_VALUE);
                }
                let d = &k.program.context.devices[dev];
                let l = sub_groups::local_size_for_count(
                    wanted,
                    f.max_threads as u64,
                    d.max_work_item_sizes[0] as u64,
                    reqd,
                );
                out.slice(&l.map(|v| v as usize)[..dims])
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => {
                let items = match reqd {
                    Some(r) => r.iter().map(|&v| v as u64).product(),
                    None => f.max_threads as u64,
                };
                out.value::<usize>(sub_groups::count(items) as usize)
            }
            // Only kernels from IL with a required number of sub-groups have one.
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => out.value::<usize>(0),
            // cl_intel_required_subgroup_size: intel_reqd_sub_group_size(N) (N is 32: ptxgen
            // refuses other sizes), else 0.
            CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL => {
                out.value::<usize>(sub_groups::required_size(&k.shape.info.attributes) as usize)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// An array argument of `n` entries, or None for NULL.
///
/// # Safety
/// `p` is NULL or holds `n` values that outlive `'a`.
unsafe fn opt_dims<'a>(p: *const usize, n: u32) -> Option<&'a [usize]> {
    if p.is_null() || !(1..=3).contains(&n) {
        None
    } else {
        // SAFETY: work_dim entries, per the API.
        Some(unsafe { std::slice::from_raw_parts(p, n as usize) })
    }
}

/// A launch of `k` on `q`'s device with the arguments as set now (held by the launch):
/// clEnqueueNDRangeKernel's checks of the geometry and the arguments (also recorded into
/// command buffers).
///
/// # Safety
/// `offset`, `global` and `local` are NULL or hold `work_dim` values each.
pub(super) unsafe fn prepare_launch(
    q: &Queue,
    k: &Arc<Cl<Kernel>>,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
) -> CLResult<Launch> {
    // SAFETY: this function's contract.
    unsafe { prepare_launch_opt(q, k, work_dim, offset, global, local, false) }?.ok_or(CL_INVALID_KERNEL_ARGS)
}

/// `prepare_launch`; with `allow_unset`, None (after the geometry's checks) where arguments
/// are not all set yet (a mutable dispatch whose arguments an update will set).
///
/// # Safety
/// As `prepare_launch`.
pub(super) unsafe fn prepare_launch_opt(
    q: &Queue,
    k: &Arc<Cl<Kernel>>,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    allow_unset: bool,
) -> CLResult<Option<Launch>> {
    let f = k.shape.funcs.get(q.dev).and_then(|f| f.as_ref()).ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    let geo = k.geometry(
        q.dev,
        f,
        work_dim,
        // SAFETY: the pointers passed on are covered by this function's own contract.
        unsafe { opt_dims(offset, work_dim) },
        // SAFETY: the pointers passed on are covered by this function's own contract.
        unsafe { opt_dims(global, work_dim) },
        // SAFETY: the pointers passed on are covered by this function's own contract.
        unsafe { opt_dims(local, work_dim) },
    )?;
    let params = k.params();
    if params.unset != 0 {
        return if allow_unset { Ok(None) } else { Err(CL_INVALID_KERNEL_ARGS) };
    }
    let mems = params.bind()?;
    let indirect = params.indirect.iter().filter_map(std::sync::Weak::upgrade).collect();
    Launch::new(k.clone(), params, mems, indirect, q.dev, geo).map(Some)
}

/// clSetKernelArgSVMPointer's checks and setting (also mutable dispatches' SVM arguments).
pub(super) fn set_svm_arg(k: &Kernel, arg_index: cl_uint, arg_value: *const c_void) -> CLResult<()> {
    let ctx = &k.program.context;
    if !ctx.devices.iter().any(|d| d.svm) {
        return Err(CL_INVALID_OPERATION);
    }
    let p = arg_value as usize;
    k.shape.info.args.get(arg_index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    if p != 0 && ctx.svm_at(p, 0).is_none() {
        return Err(CL_INVALID_ARG_VALUE);
    }
    k.set_arg_pointer(arg_index, p as u64, None)
}

#[allow(clippy::too_many_arguments)]
/// # Safety
/// The pointer arguments are valid as clEnqueueNDRangeKernel's specification requires.
unsafe fn enqueue_ndrange(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    num_events: cl_uint,
    events: *const cl_event,
    event: *mut cl_event,
    command_type: cl_command_type,
) -> CLResult<()> {
    let q = Cl::<Queue>::get(command_queue)?;
    let k = Cl::<Kernel>::get(kernel)?;
    if !Arc::ptr_eq(&q.context, &k.program.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    k.shape.funcs.get(q.dev).and_then(|f| f.as_ref()).ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
    // SAFETY: the caller's contract: events holds num_events event handles.
    let waits = unsafe { wait_list(num_events, events) }?;
    // SAFETY: the pointers passed on are covered by this function's own contract.
    let launch = unsafe { prepare_launch(&q, &k, work_dim, offset, global, local) }?;
    // SAFETY: the caller's contract: event is NULL or a cl_event.
    unsafe { submit(&q, command_type, waits, false, false, event, move |q: &Queue| launch.run(q)) }
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            enqueue_ndrange(
                command_queue,
                kernel,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
                num_events_in_wait_list,
                event_wait_list,
                event,
                CL_COMMAND_NDRANGE_KERNEL,
            )
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize; 1];
    entry(|| {
        // SAFETY: the entry point's own pointer arguments, valid per the spec.
        unsafe {
            enqueue_ndrange(
                command_queue,
                kernel,
                1,
                std::ptr::null(),
                one.as_ptr(),
                one.as_ptr(),
                num_events_in_wait_list,
                event_wait_list,
                event,
                CL_COMMAND_TASK,
            )
        }
    })
}

/// CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL.
#[no_mangle]
pub unsafe extern "C" fn clEnqueueNativeKernel(
    command_queue: cl_command_queue,
    user_func: Option<unsafe extern "C" fn(arg1: *mut c_void)>,
    _args: *mut c_void,
    _cb_args: usize,
    _num_mem_objects: cl_uint,
    _mem_list: *const cl_mem,
    _args_mem_loc: *mut *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    entry(|| {
        Cl::<Queue>::get(command_queue)?;
        // SAFETY: event_wait_list holds num_events_in_wait_list handles, per the spec.
        unsafe { wait_list(num_events_in_wait_list, event_wait_list) }?;
        if user_func.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        Err(CL_INVALID_OPERATION)
    })
}
