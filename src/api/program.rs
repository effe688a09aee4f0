//! Programs: creation from source or binary, build/compile/link, queries.
use super::args::{c_str, slice_arg, write_opt};
use super::info::InfoOut;
use crate::base::entry::{entry, entry_ret, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::features;
use crate::core::program::{parse_binary, Origin, Program};
use std::ffi::{c_char, c_uchar, c_void};
use std::sync::Arc;

type ProgramNotify = Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>;

/// The devices of a (num_devices, device_list) pair, each checked to be in `devices`;
/// all of `devices` when the list is empty.
///
/// # Safety
/// `list` holds `num` device handles, or is NULL with `num` 0.
unsafe fn device_subset(
    devices: &[Arc<Cl<Device>>],
    num: cl_uint,
    list: *const cl_device_id,
) -> CLResult<Vec<usize>> {
    // SAFETY: the caller's contract: list holds num device handles.
    let hs = unsafe { slice_arg(list, num as usize, CL_INVALID_VALUE) }?;
    if hs.is_empty() {
        return Ok((0..devices.len()).collect());
    }
    let mut out = Vec::with_capacity(hs.len());
    for &h in hs {
        let d = Cl::<Device>::get(h)?;
        let pos = devices.iter().position(|x| Arc::ptr_eq(x, &d)).ok_or(CL_INVALID_DEVICE)?;
        if !out.contains(&pos) {
            out.push(pos);
        }
    }
    Ok(out)
}

fn check_notify(pfn: ProgramNotify, user_data: *mut c_void) -> CLResult<()> {
    if pfn.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Calls the application's build/compile/link callback, if it gave one.
///
/// # Safety
/// `pfn`, if any, is sound to call with `user_data`: the application's promise in passing them.
unsafe fn notify(p: &Arc<Cl<Program>>, pfn: ProgramNotify, user_data: *mut c_void) {
    if let Some(f) = pfn {
        // SAFETY: the application's callback with its own data (this function's contract).
        unsafe { f(p.handle(), user_data) };
    }
}

/// # Safety
/// `options` is NULL or a NUL-terminated string.
unsafe fn options_str(options: *const c_char) -> CLResult<String> {
    if options.is_null() {
        return Ok(String::new());
    }
    // SAFETY: the caller's contract: options is a NUL-terminated string.
    unsafe { c_str(options) }.map(str::to_string).ok_or(CL_INVALID_BUILD_OPTIONS)
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        if count == 0 || strings.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut src = Vec::new();
        for i in 0..count as usize {
            // SAFETY: `count` string pointers, and `count` lengths when lengths is not NULL.
            let s = unsafe { *strings.add(i) };
            if s.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: lengths, when given, has count entries, per the spec.
            let len = if lengths.is_null() { 0 } else { unsafe { *lengths.add(i) } };
            if len == 0 {
                // SAFETY: a zero length means a NUL-terminated string, per the spec.
                src.extend_from_slice(unsafe { std::ffi::CStr::from_ptr(s) }.to_bytes());
            } else {
                // SAFETY: strings[i] has lengths[i] bytes, per the spec.
                src.extend_from_slice(unsafe { std::slice::from_raw_parts(s as *const u8, len) });
            }
        }
        let source = String::from_utf8_lossy(&src).into_owned();
        let devices = c.devices.clone();
        Ok(Cl::new_handle(Program::new(c, devices, source, Origin::Source)))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const c_uchar,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        if num_devices == 0 || device_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let n = num_devices as usize;
        // SAFETY: num_devices entries each.
        let hs = unsafe { std::slice::from_raw_parts(device_list, n) };
        let mut devices = Vec::with_capacity(n);
        for &h in hs {
            let d = Cl::<Device>::get(h)?;
            if c.device_index(&d).is_none() {
                return Err(CL_INVALID_DEVICE);
            }
            devices.push(d);
        }
        if lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let status = |i: usize, s: cl_int| {
            if !binary_status.is_null() {
                // SAFETY: num_devices entries.
                unsafe { binary_status.add(i).write(s) };
            }
        };
        let mut result = Ok(());
        let mut parsed = Vec::with_capacity(n);
        for (i, device) in devices.iter().enumerate() {
            // SAFETY: lengths and binaries hold num_devices entries (checked non-NULL above).
            let (len, bin) = unsafe { (*lengths.add(i), *binaries.add(i)) };
            if len == 0 || bin.is_null() {
                status(i, CL_INVALID_VALUE);
                if result.is_ok() {
                    result = Err(CL_INVALID_VALUE);
                }
                continue;
            }
            // SAFETY: binaries[i] has lengths[i] bytes, per the spec.
            let bytes = unsafe { std::slice::from_raw_parts(bin, len) };
            match parse_binary(bytes, device) {
                Ok(p) => {
                    status(i, CL_SUCCESS);
                    parsed.push((p, bytes.to_vec()));
                }
                Err(_) => {
                    status(i, CL_INVALID_BINARY);
                    if result.is_ok() {
                        result = Err(CL_INVALID_BINARY);
                    }
                }
            }
        }
        result?;
        Ok(Cl::new_handle(Program::with_binaries(c, devices, parsed)))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// cudacl has no built-in kernels (CL_DEVICE_BUILT_IN_KERNELS is empty).
#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        if num_devices == 0 || device_list.is_null() || kernel_names.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: device_list holds num_devices handles, per the spec.
        unsafe { device_subset(&c.devices, num_devices, device_list) }?;
        Err(CL_INVALID_VALUE)
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// OpenCL 2.1 / cl_khr_il_program (also clCreateProgramWithILKHR): a SPIR-V module, kept as
/// given and translated at build time (ptxgen's translator). Without a translator no device
/// supports IL: the 3.0 spec's CL_INVALID_OPERATION. A module without SPIR-V's magic number is
/// CL_INVALID_VALUE; one the translator rejects fails its build, with the reason in the log.
#[no_mangle]
pub unsafe extern "C" fn clCreateProgramWithIL(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        // Before the arguments: without IL support every call is refused the same way.
        if !features::il_supported() {
            return Err(CL_INVALID_OPERATION);
        }
        if il.is_null() || length == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: il points to length readable bytes, per the spec.
        let bytes = unsafe { std::slice::from_raw_parts(il as *const u8, length) }.to_vec();
        // SPIR-V's magic number, in the host's (little-endian) byte order.
        if !length.is_multiple_of(4) || length < 20 || bytes[..4] != 0x0723_0203u32.to_le_bytes() {
            return Err(CL_INVALID_VALUE);
        }
        let devices = c.devices.clone();
        Ok(Cl::new_handle(Program::with_il(c, devices, bytes)))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainProgram(program: cl_program) -> cl_int {
    entry(|| Cl::<Program>::retain(program))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseProgram(program: cl_program) -> cl_int {
    entry(|| Cl::<Program>::release(program))
}

#[no_mangle]
pub unsafe extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        // SAFETY: device_list holds num_devices handles, per the spec.
        let positions = unsafe { device_subset(&p.devices, num_devices, device_list) }?;
        check_notify(pfn_notify, user_data)?;
        // SAFETY: options is NULL or a NUL-terminated string, per the spec.
        let opts = unsafe { options_str(options) }?;
        if p.origin == Origin::Linked {
            return Err(CL_INVALID_OPERATION);
        }
        let r = p.build(&positions, &opts);
        if !matches!(r, Err(CL_INVALID_OPERATION)) {
            // SAFETY: the application's callback and data, as it passed them to this entry point.
            unsafe { notify(&p, pfn_notify, user_data) };
        }
        r
    })
}

#[no_mangle]
pub unsafe extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        // SAFETY: device_list holds num_devices handles, per the spec.
        let positions = unsafe { device_subset(&p.devices, num_devices, device_list) }?;
        check_notify(pfn_notify, user_data)?;
        // SAFETY: input_headers holds num_input_headers program handles, per the spec.
        let hs = unsafe { slice_arg(input_headers, num_input_headers as usize, CL_INVALID_VALUE) }?;
        if num_input_headers != 0 && header_include_names.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if num_input_headers == 0 && !header_include_names.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut headers = Vec::with_capacity(hs.len());
        for (i, &h) in hs.iter().enumerate() {
            let hp = Cl::<Program>::get(h)?;
            // SAFETY: num_input_headers names.
            // SAFETY: each of the num_input_headers names is a NUL-terminated string, per the spec.
            let name = unsafe { c_str(*header_include_names.add(i)) }.ok_or(CL_INVALID_VALUE)?;
            headers.push((name.to_string(), hp.source.clone()));
        }
        // SAFETY: options is NULL or a NUL-terminated string, per the spec.
        let opts = unsafe { options_str(options) }.map_err(|_| CL_INVALID_COMPILER_OPTIONS)?;
        if !matches!(p.origin, Origin::Source | Origin::Il) {
            return Err(CL_INVALID_OPERATION);
        }
        let r = p.compile(&positions, &opts, &headers);
        if !matches!(r, Err(CL_INVALID_OPERATION)) {
            // SAFETY: the application's callback and data, as it passed them to this entry point.
            unsafe { notify(&p, pfn_notify, user_data) };
        }
        r
    })
}

#[no_mangle]
pub unsafe extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: ProgramNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    // A link that fails still returns the program (with its log) and CL_LINK_PROGRAM_FAILURE.
    let mut failed_code = CL_SUCCESS;
    let fc = &mut failed_code;
    let mut code_slot: cl_int = CL_SUCCESS;
    let body = || {
        let c = Cl::<Context>::get(context)?;
        // SAFETY: device_list holds num_devices handles, per the spec.
        let positions = unsafe { device_subset(&c.devices, num_devices, device_list) }?;
        check_notify(pfn_notify, user_data)?;
        // SAFETY: input_programs holds num_input_programs handles, per the spec.
        let ins = unsafe { slice_arg(input_programs, num_input_programs as usize, CL_INVALID_VALUE) }?;
        if ins.is_empty() {
            return Err(CL_INVALID_VALUE);
        }
        let inputs = Cl::<Program>::get_list(ins)?;
        // SAFETY: options is NULL or a NUL-terminated string, per the spec.
        let opts = unsafe { options_str(options) }.map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        let parsed = ptxgen::options::parse_link(&opts).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        let devices: Vec<Arc<Cl<Device>>> = positions.iter().map(|&i| c.devices[i].clone()).collect();
        // The objects of every input for each device.
        let mut per_dev = Vec::with_capacity(devices.len());
        for d in &devices {
            let mut objs = Vec::new();
            for ip in &inputs {
                if !Arc::ptr_eq(&ip.context, &c) {
                    return Err(CL_INVALID_PROGRAM);
                }
                let pos = ip.device_pos(d).ok_or(CL_INVALID_OPERATION)?;
                let b = ip.build_of(pos).ok_or(CL_INVALID_OPERATION)?;
                let t = b.binary_type;
                if b.objects.is_empty()
                    || !(t == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT || t == CL_PROGRAM_BINARY_TYPE_LIBRARY)
                {
                    return Err(CL_INVALID_OPERATION);
                }
                objs.extend(b.objects.iter().cloned());
            }
            per_dev.push(objs);
        }
        let p = Cl::publish(Program::new(c, devices, String::new(), Origin::Linked));
        let r = p.link(per_dev, &opts, &parsed);
        // SAFETY: the application's callback and data, as it passed them to this entry point.
        unsafe { notify(&p, pfn_notify, user_data) };
        match r {
            Ok(()) => {}
            Err(CL_LINK_PROGRAM_FAILURE) => *fc = CL_LINK_PROGRAM_FAILURE,
            Err(e) => {
                let _ = Cl::<Program>::release(p.handle());
                return Err(e);
            }
        }
        Ok(p.handle())
    };
    // SAFETY: code_slot is a local cl_int.
    let h = unsafe { entry_ret(&mut code_slot, body) };
    let code = if code_slot == CL_SUCCESS { failed_code } else { code_slot };
    // SAFETY: errcode_ret is NULL or a cl_int, per the spec.
    unsafe { write_opt(errcode_ret, code) };
    h
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramInfo(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_PROGRAM_REFERENCE_COUNT => out.value::<cl_uint>(p.ref_count()),
            CL_PROGRAM_CONTEXT => out.value(p.context.handle()),
            CL_PROGRAM_NUM_DEVICES => out.value::<cl_uint>(p.devices.len() as cl_uint),
            CL_PROGRAM_DEVICES => {
                let hs: Vec<cl_device_id> = p.devices.iter().map(|d| d.handle()).collect();
                out.slice(&hs)
            }
            CL_PROGRAM_SOURCE => out.str(&p.source),
            CL_PROGRAM_BINARY_SIZES => {
                let sizes: Vec<usize> = (0..p.devices.len()).map(|i| p.binary(i).len()).collect();
                out.slice(&sizes)
            }
            CL_PROGRAM_BINARIES => {
                let n = p.devices.len();
                let need = n * std::mem::size_of::<*mut u8>();
                if !param_value.is_null() {
                    if param_value_size < need {
                        return Err(CL_INVALID_VALUE);
                    }
                    let ptrs = param_value as *const *mut u8;
                    for i in 0..n {
                        // SAFETY: an array of n pointers, each NULL or big enough (BINARY_SIZES).
                        let dst = unsafe { *ptrs.add(i) };
                        if !dst.is_null() {
                            let b = p.binary(i);
                            // SAFETY: dst has room for binary i: the caller sized it from CL_PROGRAM_BINARY_SIZES.
                            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst, b.len()) };
                        }
                    }
                }
                // SAFETY: param_value_size_ret is NULL or a size_t, per the spec.
                unsafe { write_opt(param_value_size_ret, need) };
                Ok(())
            }
            CL_PROGRAM_NUM_KERNELS => {
                let exe = p.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
                out.value::<usize>(exe.kernels.len())
            }
            CL_PROGRAM_KERNEL_NAMES => {
                let exe = p.any_executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
                let names: Vec<&str> = exe.kernels.iter().map(|k| k.name.as_str()).collect();
                out.str(&names.join(";"))
            }
            // The SPIR-V of a program made with clCreateProgramWithIL; for any other program
            // nothing (size 0), as the 3.0 spec says.
            CL_PROGRAM_IL => out.bytes(&p.il),
            // No program-scope constructors or destructors (OpenCL C++ for OpenCL 2.2).
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => out.bool(false),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn clGetProgramBuildInfo(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        let d = Cl::<Device>::get(device)?;
        let pos = p.device_pos(&d).ok_or(CL_INVALID_DEVICE)?;
        let b = p.build_of(pos).ok_or(CL_INVALID_DEVICE)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_PROGRAM_BUILD_STATUS => out.value::<cl_build_status>(b.status),
            CL_PROGRAM_BUILD_OPTIONS => out.str(&b.options),
            CL_PROGRAM_BUILD_LOG => out.str(&b.log),
            CL_PROGRAM_BINARY_TYPE => out.value::<cl_program_binary_type>(b.binary_type),
            // No program-scope __global variables (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE is 0).
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => out.value::<usize>(0),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// OpenCL 2.2: no device supports program-scope global destructors.
#[no_mangle]
pub unsafe extern "C" fn clSetProgramReleaseCallback(
    program: cl_program,
    pfn_notify: ProgramNotify,
    _user_data: *mut c_void,
) -> cl_int {
    entry(|| {
        Cl::<Program>::get(program)?;
        if pfn_notify.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        // The 3.0 spec's code when no device supports program-scope global destructors.
        Err(CL_INVALID_OPERATION)
    })
}

/// OpenCL 2.2: a SPIR-V specialization constant's value for the program's next build (the
/// translator's --spec-const). CL_INVALID_OPERATION without IL support, CL_INVALID_PROGRAM
/// for a program not made from IL, CL_INVALID_SPEC_ID for an id the module does not have,
/// CL_INVALID_VALUE for another size than the constant's or a NULL value.
#[no_mangle]
pub unsafe extern "C" fn clSetProgramSpecializationConstant(
    program: cl_program,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    entry(|| {
        let p = Cl::<Program>::get(program)?;
        if !features::il_supported() {
            return Err(CL_INVALID_OPERATION);
        }
        if p.origin != Origin::Il {
            return Err(CL_INVALID_PROGRAM);
        }
        if spec_value.is_null() || spec_size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: spec_value points to spec_size readable bytes, per the spec.
        let value = unsafe { std::slice::from_raw_parts(spec_value as *const u8, spec_size) };
        p.set_spec_constant(spec_id, value)
    })
}
