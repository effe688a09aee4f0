//! cl_khr_command_buffer_mutable_dispatch (0.9.5): kernel commands of a command buffer made
//! with CL_COMMAND_BUFFER_MUTABLE_KHR whose arguments and NDRange later updates change.
//!
//! A mutable dispatch keeps a private clone of its kernel (the arguments as recorded, then as
//! updated) and its geometry. An update checks every configuration first, on copies, and then
//! replaces the recorded launches for later enqueues (core::command_buffer::CommandBuffer::
//! replace: enqueued replays keep what they took; the buffer's CUDA graph is captured again at
//! its next replay). Updatable: global offset, global size, local size, arguments (SVM ones
//! too); not kernel execution info. No simultaneous use.
use super::args::{property_pairs, slice_arg};
use super::info::InfoOut;
use super::kernel::{prepare_launch_opt, set_exec_info, set_svm_arg};
use crate::base::entry::{entry, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::command_buffer::{khr, CommandBuffer, Dispatch, MutableCommand, Recorded};
use crate::core::kernel::{Kernel, Launch};
use crate::core::memory::Mem;
use crate::core::queue::Queue;
use std::ffi::c_void;
use std::sync::Arc;

/// CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR.
pub const CAPABILITIES: u64 = khr::CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
    | khr::CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
    | khr::CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
    | khr::CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
    | khr::CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// cl_mutable_dispatch_arg_khr.
#[repr(C)]
struct DispatchArg {
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
}

/// cl_mutable_dispatch_exec_info_khr.
#[repr(C)]
struct DispatchExecInfo {
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *const c_void,
}

/// cl_mutable_dispatch_config_khr (0.9.5).
#[repr(C)]
struct DispatchConfig {
    command: cl_mutable_command_khr,
    num_args: cl_uint,
    num_svm_args: cl_uint,
    num_exec_infos: cl_uint,
    work_dim: cl_uint,
    arg_list: *const DispatchArg,
    arg_svm_list: *const DispatchArg,
    exec_info_list: *const DispatchExecInfo,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
}

/// The properties of a kernel command (clCommandNDRangeKernelKHR): the updatable fields
/// (default: every capability) and the list with its 0 (empty for NULL).
///
/// # Safety
/// `properties` is NULL or a 0-terminated (name, value) list.
pub(super) unsafe fn kernel_properties(properties: *const cl_ulong) -> CLResult<(u64, Vec<cl_ulong>)> {
    let mut fields = CAPABILITIES;
    let mut list: Vec<cl_ulong> = Vec::new();
    // SAFETY: this function's contract.
    for (name, value) in unsafe { property_pairs(properties) } {
        if list.chunks(2).any(|p| p[0] == name) {
            return Err(CL_INVALID_VALUE);
        }
        match name {
            khr::CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR if value & !CAPABILITIES == 0 => fields = value,
            khr::CL_MUTABLE_DISPATCH_ASSERTS_KHR
                if value & !khr::CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR == 0 => {}
            _ => return Err(CL_INVALID_VALUE),
        }
        list.extend([name, value]);
    }
    if !properties.is_null() {
        list.push(0);
    }
    Ok((fields, list))
}

/// The buffers a launch uses, and whether it may write each (for the graph's checks).
pub(super) fn launch_mems(launch: &Launch) -> Vec<(Arc<Cl<Mem>>, bool)> {
    let read_only = CL_MEM_READ_ONLY as cl_mem_flags;
    let mut mems: Vec<(Arc<Cl<Mem>>, bool)> = Vec::new();
    for (arg, m) in launch.params.mems.iter().zip(launch.mems.iter()) {
        if let Some(m) = m {
            mems.push((m.clone(), !arg.constant && m.flags & read_only == 0));
        }
    }
    mems.extend(launch.indirect.iter().map(|m| (m.clone(), true)));
    mems
}

/// The recorded command of a dispatch: its launch, or (arguments not all set yet) a command
/// that keeps the buffer from being enqueued.
fn recorded(launch: Option<Launch>) -> Recorded {
    match launch {
        Some(launch) => {
            let mems = launch_mems(&launch);
            Recorded { work: Arc::new(move |q: &Queue| launch.run(q)), ready: true, mems, graphable: true }
        }
        None => Recorded {
            work: Arc::new(|_: &Queue| Err(CL_INVALID_KERNEL_ARGS)),
            ready: false,
            mems: Vec::new(),
            graphable: false,
        },
    }
}

/// The launch of `k` on `q`'s device with dispatch `d` (None: arguments not all set).
fn launch_of(q: &Queue, k: &Arc<Cl<Kernel>>, d: &Dispatch) -> CLResult<Option<Launch>> {
    let local = d.local.as_ref().map_or(std::ptr::null(), |l| l.as_ptr());
    // SAFETY: each array holds work_dim values (Dispatch's invariant).
    unsafe { prepare_launch_opt(q, k, d.work_dim, d.offset.as_ptr(), d.global.as_ptr(), local, true) }
}

/// `work_dim` values from `p`, or None for NULL.
///
/// # Safety
/// `p` is NULL or holds `n` values.
unsafe fn dims(p: *const usize, n: u32) -> Option<Vec<usize>> {
    // SAFETY: this function's contract.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec())
}

/// clCommandNDRangeKernelKHR with a mutable handle: records the dispatch and returns its
/// handle. The geometry is checked now; the arguments may be set later when updatable.
///
/// # Safety
/// The pointers are as clCommandNDRangeKernelKHR's contract gives them.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn record_mutable(
    cb: &Arc<Cl<CommandBuffer>>,
    k: &Arc<Cl<Kernel>>,
    fields: u64,
    properties: Vec<cl_ulong>,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
) -> CLResult<(Recorded, impl FnOnce(usize) -> CLResult<cl_mutable_command_khr>)> {
    let private = Cl::new(k.clone_kernel()?);
    let launch = if fields & khr::CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0 {
        // SAFETY: this function's contract.
        unsafe { prepare_launch_opt(&cb.queue, &private, work_dim, offset, global, local, true) }?
    } else {
        // SAFETY: this function's contract.
        Some(
            unsafe { prepare_launch_opt(&cb.queue, &private, work_dim, offset, global, local, false) }?
                .ok_or(CL_INVALID_KERNEL_ARGS)?,
        )
    };
    // SAFETY: valid NDRange arrays of work_dim (1..=3, checked above) values, or NULL.
    let (o, g, l) = unsafe { (dims(offset, work_dim), dims(global, work_dim), dims(local, work_dim)) };
    let dispatch = Dispatch {
        work_dim,
        offset: o.unwrap_or_else(|| vec![0; work_dim as usize]),
        global: g.ok_or(CL_INVALID_GLOBAL_WORK_SIZE)?,
        local: l,
    };
    let (cb2, kernel) = (Arc::downgrade(cb), k.clone());
    let make = move |index: usize| {
        let mc = Cl::publish(MutableCommand {
            buffer: cb2.clone(),
            index,
            kernel,
            fields,
            properties,
            state: std::sync::Mutex::new((private, dispatch)),
        });
        let handle = mc.handle();
        let cb = cb2.upgrade().ok_or(khr::CL_INVALID_COMMAND_BUFFER_KHR)?;
        crate::base::entry::lock(&cb.mutable_commands).push(mc);
        Ok(handle)
    };
    Ok((recorded(launch), make))
}

#[no_mangle]
pub unsafe extern "C" fn clUpdateMutableCommandsKHR(
    command_buffer: cl_command_buffer_khr,
    num_configs: cl_uint,
    config_types: *const cl_uint,
    configs: *const *const c_void,
) -> cl_int {
    entry(|| {
        let cb = Cl::<CommandBuffer>::get(command_buffer)?;
        if !cb.is_finalized() || !cb.mutable {
            return Err(CL_INVALID_OPERATION);
        }
        // SAFETY: config_types and configs hold num_configs entries, per the spec.
        let types = unsafe { slice_arg(config_types, num_configs as usize, CL_INVALID_VALUE) }?;
        // SAFETY: as above.
        let configs = unsafe { slice_arg(configs, num_configs as usize, CL_INVALID_VALUE) }?;
        // Every configuration checked and applied to copies first: none is kept if one fails.
        let mut done = Vec::new();
        for (&ty, &config) in types.iter().zip(configs) {
            if ty != khr::CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR || config.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: a cl_mutable_dispatch_config_khr, per its type.
            let c = unsafe { &*(config as *const DispatchConfig) };
            // A command configured twice in one call: the second applies over the first.
            let earlier = done.iter().rposition(|u: &Update| u.0.handle() == c.command);
            let base = earlier.map(|i| (done[i].1.clone(), done[i].2.clone()));
            // SAFETY: the lists and arrays of a config are valid for their counts, per the spec.
            done.push(unsafe { update_one(&cb, c, base) }?);
        }
        let mut replaced = Vec::new();
        for (mc, kernel, dispatch, rec) in done {
            replaced.push((mc.index, rec));
            *crate::base::entry::lock(&mc.state) = (kernel, dispatch);
        }
        cb.replace(replaced)
    })
}

type Update = (Arc<Cl<MutableCommand>>, Arc<Cl<Kernel>>, Dispatch, Recorded);

/// One configuration's checks and its new state (not applied yet).
///
/// # Safety
/// The config's lists and arrays hold the counts it gives.
unsafe fn update_one(
    cb: &Arc<Cl<CommandBuffer>>,
    c: &DispatchConfig,
    base: Option<(Arc<Cl<Kernel>>, Dispatch)>,
) -> CLResult<Update> {
    let mc = Cl::<MutableCommand>::get(c.command)?;
    if !std::ptr::eq(mc.buffer.as_ptr(), Arc::as_ptr(cb)) {
        return Err(khr::CL_INVALID_MUTABLE_COMMAND_KHR);
    }
    let has = |f: u64| mc.fields & f != 0;
    let args = c.num_args != 0 || c.num_svm_args != 0;
    if (args && !has(khr::CL_MUTABLE_DISPATCH_ARGUMENTS_KHR))
        || (c.num_exec_infos != 0 && !has(khr::CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))
        || (!c.global_work_offset.is_null() && !has(khr::CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR))
        || (!c.global_work_size.is_null() && !has(khr::CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR))
        || (!c.local_work_size.is_null() && !has(khr::CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR))
    {
        return Err(CL_INVALID_OPERATION);
    }
    // SAFETY: this function's contract.
    let arg_list = unsafe { slice_arg(c.arg_list, c.num_args as usize, CL_INVALID_VALUE) }?;
    // SAFETY: as above.
    let svm_list = unsafe { slice_arg(c.arg_svm_list, c.num_svm_args as usize, CL_INVALID_VALUE) }?;
    // SAFETY: as above.
    let exec_infos = unsafe { slice_arg(c.exec_info_list, c.num_exec_infos as usize, CL_INVALID_VALUE) }?;
    let (kernel, mut d) = base.unwrap_or_else(|| crate::base::entry::lock(&mc.state).clone());
    if c.work_dim != 0 && c.work_dim != d.work_dim {
        return Err(CL_INVALID_VALUE);
    }
    let kernel = if args || !exec_infos.is_empty() {
        let copy = Cl::new(kernel.clone_kernel()?);
        for a in arg_list {
            // SAFETY: arg_value is NULL or arg_size readable bytes, as for clSetKernelArg.
            unsafe { super::kernel_args::set_kernel_arg(&copy, a.arg_index, a.arg_size, a.arg_value) }?;
        }
        for a in svm_list {
            set_svm_arg(&copy, a.arg_index, a.arg_value)?;
        }
        // Exec info as clSetKernelExecInfo takes it (SVM pointer lists, device pointer lists).
        for e in exec_infos {
            // SAFETY: param_value is NULL or param_value_size readable bytes (the extension's contract).
            unsafe { set_exec_info(&copy, e.param_name, e.param_value_size, e.param_value) }?;
        }
        copy
    } else {
        kernel
    };
    // SAFETY: this function's contract: work_dim values each.
    unsafe {
        if let Some(o) = dims(c.global_work_offset, d.work_dim) {
            d.offset = o;
        }
        if let Some(g) = dims(c.global_work_size, d.work_dim) {
            d.global = g;
        }
        if let Some(l) = dims(c.local_work_size, d.work_dim) {
            d.local = Some(l);
        }
    }
    let rec = recorded(launch_of(&cb.queue, &kernel, &d)?);
    Ok((mc, kernel, d, rec))
}

#[no_mangle]
pub unsafe extern "C" fn clGetMutableCommandInfoKHR(
    command: cl_mutable_command_khr,
    param_name: cl_uint,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let mc = Cl::<MutableCommand>::get(command)?;
        let cb = mc.buffer.upgrade().ok_or(khr::CL_INVALID_MUTABLE_COMMAND_KHR)?;
        let (_, d) = crate::base::entry::lock(&mc.state).clone();
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            khr::CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => out.value(cb.queue.handle()),
            khr::CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => out.value(cb.handle()),
            khr::CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => {
                out.value::<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL)
            }
            khr::CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => out.slice(&mc.properties),
            khr::CL_MUTABLE_DISPATCH_KERNEL_KHR => out.value(mc.kernel.handle()),
            khr::CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => out.value::<cl_uint>(d.work_dim),
            khr::CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => out.slice(&d.offset),
            khr::CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => out.slice(&d.global),
            // A local size cudacl chose (NULL when recorded) reads as zeros.
            khr::CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => {
                out.slice(&d.local.clone().unwrap_or_else(|| vec![0; d.work_dim as usize]))
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
