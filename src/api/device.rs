//! clGetDeviceIDs, clGetDeviceInfo and the sub-device calls (CUDA GPUs cannot be partitioned).
use super::args::write_opt;
use super::command_buffer as cb_api;
use super::info::InfoOut;
use crate::base::entry::{entry, CLResult};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::command_buffer as cb;
use crate::core::device::Device;
use crate::core::features;
use crate::core::kernel::sub_groups;
use crate::core::memory::BASE_ADDR_ALIGN;
use crate::core::platform::{self, Platform};
use std::ffi::c_void;

/// cl_nv_device_attribute_query, which CUDA-aware OpenCL programs use to pick code paths.
const CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV: cl_device_info = 0x4000;
const CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV: cl_device_info = 0x4001;
const CL_DEVICE_REGISTERS_PER_BLOCK_NV: cl_device_info = 0x4002;
const CL_DEVICE_WARP_SIZE_NV: cl_device_info = 0x4003;
const CL_DEVICE_GPU_OVERLAP_NV: cl_device_info = 0x4004;
const CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV: cl_device_info = 0x4005;
const CL_DEVICE_INTEGRATED_MEMORY_NV: cl_device_info = 0x4006;
const CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV: cl_device_info = 0x4007;
const CL_DEVICE_PCI_BUS_ID_NV: cl_device_info = 0x4008;
const CL_DEVICE_PCI_SLOT_ID_NV: cl_device_info = 0x4009;
const CL_DEVICE_PCI_DOMAIN_ID_NV: cl_device_info = 0x400A;

/// CUDA's device-side printf buffer (the driver's default FIFO size).
const PRINTF_BUFFER_SIZE: usize = 1 << 20;

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceIDs(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    entry(|| {
        let p = if platform.is_null() { platform::get().clone() } else { Cl::<Platform>::get(platform)? };
        let known = (CL_DEVICE_TYPE_DEFAULT
            | CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM) as cl_device_type;
        if device_type != CL_DEVICE_TYPE_ALL as cl_device_type
            && (device_type & !known != 0 || device_type == 0)
        {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let wants_gpu = device_type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT) as cl_device_type != 0
            || device_type == CL_DEVICE_TYPE_ALL as cl_device_type;
        let mut found: Vec<cl_device_id> =
            if wants_gpu { p.devices.iter().map(|d| d.handle()).collect() } else { Vec::new() };
        if device_type == CL_DEVICE_TYPE_DEFAULT as cl_device_type {
            found.truncate(1);
        }
        if found.is_empty() {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        if !devices.is_null() {
            for (i, d) in found.iter().take(num_entries as usize).enumerate() {
                // SAFETY: the caller provided num_entries slots.
                unsafe { devices.add(i).write(*d) };
            }
        }
        // SAFETY: num_devices is NULL or a cl_uint, per the spec.
        unsafe { write_opt(num_devices, found.len() as cl_uint) };
        Ok(())
    })
}

/// Single precision: divisions are div.full (2 ulp) unless a program is built with
/// -cl-fp32-correctly-rounded-divide-sqrt, which ptxgen supports (div.rn; sqrt is always sqrt.rn).
fn fp_config_single() -> cl_device_fp_config {
    (CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
        as cl_device_fp_config
}

fn fp_config_double() -> cl_device_fp_config {
    (CL_FP_DENORM
        | CL_FP_INF_NAN
        | CL_FP_ROUND_TO_NEAREST
        | CL_FP_ROUND_TO_ZERO
        | CL_FP_ROUND_TO_INF
        | CL_FP_FMA) as cl_device_fp_config
}

/// Whether the GPU has f16 arithmetic (sm_53 on); before, ptxgen computes half in f32.
fn native_half(d: &Device) -> bool {
    d.target().sm >= 53
}

/// cl_khr_fp16: round to nearest, infinities and NaNs, subnormals (PTX f16 arithmetic keeps them
/// unless .ftz is asked for), fused multiply-add (fma.rn.f16 from sm_53 on; before, ptxgen's
/// fma rounds a double fma to odd and then to half: one rounding too).
fn fp_config_half() -> cl_device_fp_config {
    (CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA) as cl_device_fp_config
}

fn device_info(d: &Cl<Device>, param: cl_device_info, out: InfoOut) -> CLResult<()> {
    use crate::cuda::driver::attribute;
    use crate::cuda::sys::CUdevice_attribute as A;
    match param {
        CL_DEVICE_TYPE => out.value(CL_DEVICE_TYPE_GPU as cl_device_type),
        CL_DEVICE_VENDOR_ID => out.value::<cl_uint>(0x10de),
        CL_DEVICE_MAX_COMPUTE_UNITS => out.value::<cl_uint>(d.compute_units),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => out.value::<cl_uint>(3),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => out.value(d.max_work_group_size),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => out.slice(&d.max_work_item_sizes),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => out.value::<cl_uint>(1),
        // cl_khr_fp16: half2 instructions (add.f16x2, fma.rn.f16x2...) from sm_53 on.
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => {
            out.value::<cl_uint>(if native_half(d) { 2 } else { 1 })
        }
        CL_DEVICE_MAX_CLOCK_FREQUENCY => out.value::<cl_uint>(d.clock_mhz),
        CL_DEVICE_ADDRESS_BITS => out.value::<cl_uint>(64),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => out.value::<cl_ulong>(d.max_alloc),
        CL_DEVICE_IMAGE_SUPPORT => out.bool(true),
        // Kernels receive images as descriptor pointers and samplers as plain bits: no hardware
        // binding table limits them. The spec's minimums are 128, 8 and 16.
        CL_DEVICE_MAX_READ_IMAGE_ARGS => out.value::<cl_uint>(256),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => out.value::<cl_uint>(64),
        CL_DEVICE_MAX_SAMPLERS => out.value::<cl_uint>(32),
        CL_DEVICE_IMAGE2D_MAX_WIDTH => out.value::<usize>(d.image_limits.width_2d),
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => out.value::<usize>(d.image_limits.height_2d),
        CL_DEVICE_IMAGE3D_MAX_WIDTH => out.value::<usize>(d.image_limits.size_3d[0]),
        CL_DEVICE_IMAGE3D_MAX_HEIGHT => out.value::<usize>(d.image_limits.size_3d[1]),
        CL_DEVICE_IMAGE3D_MAX_DEPTH => out.value::<usize>(d.image_limits.size_3d[2]),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => out.value::<usize>(d.image_limits.max_buffer),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => out.value::<usize>(d.image_limits.max_array),
        CL_DEVICE_MAX_PARAMETER_SIZE => {
            out.value::<usize>(d.max_param_buffer() - ptxgen::IMPLICIT_PARAMS_MAX_BYTES)
        }
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => out.value::<cl_uint>((BASE_ADDR_ALIGN * 8) as cl_uint),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => out.value::<cl_uint>(128),
        CL_DEVICE_SINGLE_FP_CONFIG => out.value(fp_config_single()),
        CL_DEVICE_DOUBLE_FP_CONFIG => out.value(fp_config_double()),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => out.value::<cl_device_mem_cache_type>(CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => out.value::<cl_uint>(128),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => out.value::<cl_ulong>(d.l2_cache),
        CL_DEVICE_GLOBAL_MEM_SIZE => out.value::<cl_ulong>(d.global_mem),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => out.value::<cl_ulong>(d.constant_mem),
        CL_DEVICE_MAX_CONSTANT_ARGS => out.value::<cl_uint>(9),
        CL_DEVICE_LOCAL_MEM_TYPE => out.value::<cl_device_local_mem_type>(CL_LOCAL),
        CL_DEVICE_LOCAL_MEM_SIZE => out.value::<cl_ulong>(d.local_mem),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => out.bool(d.ecc),
        CL_DEVICE_HOST_UNIFIED_MEMORY => out.bool(d.integrated),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => out.value::<usize>(1000),
        CL_DEVICE_ENDIAN_LITTLE => out.bool(true),
        CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => out.bool(true),
        CL_DEVICE_EXECUTION_CAPABILITIES => out.value::<cl_device_exec_capabilities>(CL_EXEC_KERNEL as _),
        CL_DEVICE_QUEUE_PROPERTIES => out.value::<cl_command_queue_properties>(
            (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as _,
        ),
        CL_DEVICE_BUILT_IN_KERNELS => out.str(""),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => out.slice::<cl_name_version>(&[]),
        CL_DEVICE_PLATFORM => out.value(platform::get().handle()),
        CL_DEVICE_NAME => out.str(&d.name),
        CL_DEVICE_VENDOR => out.str("NVIDIA Corporation"),
        CL_DRIVER_VERSION => {
            out.str(&format!("{} (CUDA {})", env!("CARGO_PKG_VERSION"), d.driver_version_string()))
        }
        CL_DEVICE_PROFILE => out.str("FULL_PROFILE"),
        CL_DEVICE_VERSION => out.str(&platform::version()),
        // OpenCL 3.0: the highest OpenCL C version the compiler is fully backwards compatible
        // with; OpenCL C 3.0 without 2.0's optional features answers 1.2.
        CL_DEVICE_OPENCL_C_VERSION => out.str("OpenCL C 1.2 "),
        CL_DEVICE_EXTENSIONS => out.str(&features::names(&features::device_extensions())),
        // OpenCL 2.x/3.0 queries (their order and values: the 3.0 API spec's clGetDeviceInfo table;
        // every absent optional feature answers what the spec gives for a device without it).
        CL_DEVICE_NUMERIC_VERSION => out.value::<cl_version>(features::OPENCL_VERSION),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => {
            out.slice(&features::with_version(&features::device_extensions()))
        }
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => out.slice(&features::opencl_c_all_versions()),
        CL_DEVICE_OPENCL_C_FEATURES => out.slice(&features::opencl_c_features()),
        // No intermediate-language programs (clCreateProgramWithIL answers CL_INVALID_OPERATION).
        CL_DEVICE_IL_VERSION => out.str(&features::il_version()),
        CL_DEVICE_ILS_WITH_VERSION => out.slice(&features::ils_with_version()),
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => out.value(features::ATOMIC_MEMORY_CAPABILITIES),
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => out.value(features::ATOMIC_FENCE_CAPABILITIES),
        // A local size must divide the global size (OpenCL 1.2's rule, CL_INVALID_WORK_GROUP_SIZE).
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => out.bool(false),
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => out.bool(false),
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => out.bool(false),
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => out.value::<cl_device_device_enqueue_capabilities>(0),
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => out.value::<cl_command_queue_properties>(0),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
        | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
        | CL_DEVICE_MAX_ON_DEVICE_QUEUES
        | CL_DEVICE_MAX_ON_DEVICE_EVENTS => out.value::<cl_uint>(0),
        CL_DEVICE_PIPE_SUPPORT => out.bool(false),
        CL_DEVICE_MAX_PIPE_ARGS | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS | CL_DEVICE_PIPE_MAX_PACKET_SIZE => {
            out.value::<cl_uint>(0)
        }
        // Coarse-grain buffer SVM (api/svm.rs): managed or mapped page-locked memory, one pointer
        // for host and device under unified addressing. No fine-grain sharing, no SVM atomics.
        CL_DEVICE_SVM_CAPABILITIES => out.value::<cl_device_svm_capabilities>(if d.svm {
            CL_DEVICE_SVM_COARSE_GRAIN_BUFFER as cl_device_svm_capabilities
        } else {
            0
        }),
        // Program-scope __global variables are not offered (only __constant ones, as in 1.2).
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
            out.value::<usize>(0)
        }
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => out.value::<cl_uint>(0),
        // No 2D images from buffers (cl_khr_image2d_from_buffer): both alignments 0.
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT | CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => out.value::<cl_uint>(0),
        // 0: the natural alignment of the atomic type.
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => out.value::<cl_uint>(0),
        // Sub-groups are warps (cl_khr_subgroups): as many as the largest work-group holds.
        CL_DEVICE_MAX_NUM_SUB_GROUPS => {
            out.value::<cl_uint>(sub_groups::count(d.max_work_group_size as u64) as cl_uint)
        }
        // Warps of a block are scheduled independently: one spinning on a flag another warp of
        // its work-group sets is not starved (the CUDA execution model; no lock-step between
        // warps).
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => out.bool(true),
        // cl_intel_required_subgroup_size: the sub-group sizes a kernel may require.
        CL_DEVICE_SUB_GROUP_SIZES_INTEL => out.slice(&[sub_groups::SIZE as usize]),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => out.value::<usize>(d.warp_size as usize),
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => out.str(features::LATEST_CONFORMANCE_VERSION_PASSED),
        CL_DEVICE_HALF_FP_CONFIG => out.value(fp_config_half()),
        CL_DEVICE_PRINTF_BUFFER_SIZE => out.value::<usize>(PRINTF_BUFFER_SIZE),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => out.bool(true),
        CL_DEVICE_PARENT_DEVICE => out.value::<cl_device_id>(std::ptr::null_mut()),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => out.value::<cl_uint>(0),
        CL_DEVICE_PARTITION_PROPERTIES | CL_DEVICE_PARTITION_TYPE => {
            out.value::<cl_device_partition_property>(0)
        }
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => out.value::<cl_device_affinity_domain>(0),
        CL_DEVICE_REFERENCE_COUNT => out.value::<cl_uint>(1),
        CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV => out.value::<cl_uint>(d.compute_capability.0 as u32),
        CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV => out.value::<cl_uint>(d.compute_capability.1 as u32),
        CL_DEVICE_REGISTERS_PER_BLOCK_NV => {
            out.value::<cl_uint>(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK) as u32)
        }
        CL_DEVICE_WARP_SIZE_NV => out.value::<cl_uint>(d.warp_size),
        CL_DEVICE_GPU_OVERLAP_NV => out.bool(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP) != 0),
        CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV => {
            out.bool(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT) != 0)
        }
        CL_DEVICE_INTEGRATED_MEMORY_NV => out.bool(d.integrated),
        CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV => {
            out.value::<cl_uint>(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT) as u32)
        }
        CL_DEVICE_PCI_BUS_ID_NV => {
            out.value::<cl_uint>(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) as u32)
        }
        CL_DEVICE_PCI_SLOT_ID_NV => {
            out.value::<cl_uint>(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) as u32)
        }
        CL_DEVICE_PCI_DOMAIN_ID_NV => {
            out.value::<cl_uint>(attribute(d.cu, A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) as u32)
        }
        // cl_khr_command_buffer.
        cb::khr::CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => out.value::<cl_bitfield>(cb_api::CAPABILITIES),
        cb::khr::CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
            out.value::<cl_command_queue_properties>(cb_api::SUPPORTED_QUEUE_PROPERTIES)
        }
        cb::khr::CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR => {
            out.value::<cl_bitfield>(super::mutable_dispatch::CAPABILITIES)
        }
        cb::khr::CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => {
            out.value::<cl_command_queue_properties>(cb_api::REQUIRED_QUEUE_PROPERTIES)
        }
        _ => Err(CL_INVALID_VALUE),
    }
}

#[no_mangle]
pub unsafe extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let d = Cl::<Device>::get(device)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        device_info(&d, param_name, out)
    })
}

/// CUDA has no way to split a GPU into OpenCL sub-devices: CL_DEVICE_PARTITION_PROPERTIES is
/// empty, so every partition request is CL_INVALID_VALUE (the spec's answer for an unsupported
/// partition property).
#[no_mangle]
pub unsafe extern "C" fn clCreateSubDevices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    _num_devices: cl_uint,
    _out_devices: *mut cl_device_id,
    _num_devices_ret: *mut cl_uint,
) -> cl_int {
    entry(|| {
        Cl::<Device>::get(in_device)?;
        let _ = properties;
        Err(CL_INVALID_VALUE)
    })
}

/// Root devices are not reference counted (the spec: retain/release of a root device are no-ops).
#[no_mangle]
pub unsafe extern "C" fn clRetainDevice(device: cl_device_id) -> cl_int {
    entry(|| Cl::<Device>::get(device).map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseDevice(device: cl_device_id) -> cl_int {
    entry(|| Cl::<Device>::get(device).map(|_| ()))
}
