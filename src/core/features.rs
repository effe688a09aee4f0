//! What an OpenCL 3.0 device of cudacl offers, in the forms the 3.0 queries report: the
//! extensions and OpenCL C features with their versions, the OpenCL C versions and the atomic
//! capabilities. One table, so CL_DEVICE_EXTENSIONS and CL_DEVICE_EXTENSIONS_WITH_VERSION (and
//! the compiler's feature macros, ptxgen's `-cl-ext` list) cannot disagree.
use crate::cl::*;

/// CL_MAKE_VERSION: major 10 bits, minor 10 bits, patch 12 bits.
pub const fn make_version(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << (CL_VERSION_MINOR_BITS + CL_VERSION_PATCH_BITS)) | (minor << CL_VERSION_PATCH_BITS) | patch
}

/// The OpenCL version of the platform and its devices.
pub const OPENCL_VERSION: cl_version = make_version(3, 0, 0);

/// The platform's extensions (CL_PLATFORM_EXTENSIONS[_WITH_VERSION]).
pub const PLATFORM_EXTENSIONS: &[(&str, cl_version)] = &[("cl_khr_icd", make_version(1, 0, 0))];

/// The device extensions, each at the version of its Khronos specification (1.0.0 unless said).
/// ptxgen enables the compiler side of the same list (-cl-ext).
pub const DEVICE_EXTENSIONS: &[(&str, cl_version)] = &[
    ("cl_khr_byte_addressable_store", make_version(1, 0, 0)),
    ("cl_khr_icd", make_version(1, 0, 0)),
    ("cl_khr_fp64", make_version(1, 0, 0)),
    ("cl_khr_global_int32_base_atomics", make_version(1, 0, 0)),
    ("cl_khr_global_int32_extended_atomics", make_version(1, 0, 0)),
    ("cl_khr_local_int32_base_atomics", make_version(1, 0, 0)),
    ("cl_khr_local_int32_extended_atomics", make_version(1, 0, 0)),
    ("cl_khr_int64_base_atomics", make_version(1, 0, 0)),
    ("cl_khr_int64_extended_atomics", make_version(1, 0, 0)),
    ("cl_khr_3d_image_writes", make_version(1, 0, 0)),
    // Half precision: ptxgen's bridge/half.cpp (native f16 instructions from sm_53 on).
    ("cl_khr_fp16", make_version(1, 0, 0)),
    // Sub-groups are warps (ptxgen's subgroups.cl; clGetKernelSubGroupInfo).
    ("cl_khr_subgroups", make_version(1, 0, 0)),
    ("cl_khr_subgroup_extended_types", make_version(1, 0, 0)),
    ("cl_khr_subgroup_non_uniform_vote", make_version(1, 0, 0)),
    ("cl_khr_subgroup_ballot", make_version(1, 0, 0)),
    ("cl_khr_subgroup_non_uniform_arithmetic", make_version(1, 0, 0)),
    ("cl_khr_subgroup_shuffle", make_version(1, 0, 0)),
    ("cl_khr_subgroup_shuffle_relative", make_version(1, 0, 0)),
    ("cl_khr_subgroup_clustered_reduce", make_version(1, 0, 0)),
    ("cl_khr_subgroup_rotate", make_version(1, 0, 0)),
    // intel_reqd_sub_group_size(32) kernels (the only size: a warp).
    ("cl_intel_required_subgroup_size", make_version(1, 0, 0)),
    // Raw device addresses of buffers (CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT), at the version of
    // the registry's specification (the Khronos CTS's test checks for 1.0.2).
    ("cl_ext_buffer_device_address", make_version(1, 0, 2)),
    // Command buffers (src/core/command_buffer.rs), at the provisional version whose values
    // cudacl implements (OpenCL-Headers' cl_ext.h: 0.9.8).
    ("cl_khr_command_buffer", make_version(0, 9, 8)),
    // Mutable kernel commands (src/api/mutable_dispatch.rs), at the version of the same headers.
    ("cl_khr_command_buffer_mutable_dispatch", make_version(0, 9, 5)),
    // CUDA-aware programs read the compute capability, warp size and PCI location through it.
    ("cl_nv_device_attribute_query", make_version(1, 0, 0)),
];

/// cl_khr_il_program, offered (by the platform and every device) only where ptxgen found a
/// SPIR-V translator: without one (a Jetson without llvm-spirv) IL programs cannot be built.
const IL_PROGRAM: (&str, cl_version) = ("cl_khr_il_program", make_version(1, 0, 0));

/// CL_PLATFORM_EXTENSIONS[_WITH_VERSION]: the table, and cl_khr_il_program when IL works.
pub fn platform_extensions() -> Vec<(&'static str, cl_version)> {
    with_il(PLATFORM_EXTENSIONS)
}

/// CL_DEVICE_EXTENSIONS[_WITH_VERSION]: the table, and cl_khr_il_program when IL works.
pub fn device_extensions() -> Vec<(&'static str, cl_version)> {
    with_il(DEVICE_EXTENSIONS)
}

/// Whether IL (SPIR-V) programs can be built: ptxgen found a translator.
pub fn il_supported() -> bool {
    ptxgen::il_supported()
}

fn with_il(table: &[(&'static str, cl_version)]) -> Vec<(&'static str, cl_version)> {
    let mut v = table.to_vec();
    if ptxgen::il_supported() {
        v.push(IL_PROGRAM);
    }
    v
}

/// The SPIR-V versions IL programs may have (the translator's: ptxgen::SPIRV_VERSIONS), none
/// without a translator.
fn il_versions() -> Vec<cl_version> {
    if !ptxgen::il_supported() {
        return Vec::new();
    }
    ptxgen::SPIRV_VERSIONS.iter().map(|&(major, minor)| make_version(major, minor, 0)).collect()
}

/// CL_DEVICE_IL_VERSION: "SPIR-V_1.0 SPIR-V_1.1 ..." (the 3.0 spec's spelling), "" without IL.
pub fn il_version() -> String {
    il_versions()
        .iter()
        .map(|v| {
            format!(
                "SPIR-V_{}.{}",
                v >> (CL_VERSION_MINOR_BITS + CL_VERSION_PATCH_BITS),
                (v >> CL_VERSION_PATCH_BITS) & 0x3ff
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// CL_DEVICE_ILS_WITH_VERSION: one "SPIR-V" entry per version.
pub fn ils_with_version() -> Vec<cl_name_version> {
    il_versions().into_iter().map(|v| name_version("SPIR-V", v)).collect()
}

/// The OpenCL C versions the compiler accepts with -cl-std (CL_DEVICE_OPENCL_C_ALL_VERSIONS).
/// OpenCL C 2.0 is absent: it requires the generic address space, pipes and device-side enqueue,
/// which these devices do not offer (OpenCL C 3.0 makes them optional).
pub const OPENCL_C_VERSIONS: &[cl_version] =
    &[make_version(1, 0, 0), make_version(1, 1, 0), make_version(1, 2, 0), make_version(3, 0, 0)];

/// The optional OpenCL C 3.0 features (CL_DEVICE_OPENCL_C_FEATURES, each at 3.0.0): the ones
/// whose macros ptxgen defines. Absent: __opencl_c_generic_address_space, __opencl_c_pipes,
/// __opencl_c_device_enqueue, __opencl_c_program_scope_global_variables,
/// __opencl_c_read_write_images, __opencl_c_work_group_collective_functions
/// (not implemented by ptxgen/libclc), __opencl_c_atomic_scope_all_devices (SVM is coarse-grain
/// only: nothing is shared with the host or another device while a kernel runs).
pub use ptxgen::OPENCL_C_FEATURES;

/// CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: the C11 atomics of OpenCL C 3.0 (ptxgen defines them
/// as PTX atomics with membar fences around the ordered ones), up to device scope.
pub const ATOMIC_MEMORY_CAPABILITIES: cl_device_atomic_capabilities = (CL_DEVICE_ATOMIC_ORDER_RELAXED
    | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
    | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
    | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
    | CL_DEVICE_ATOMIC_SCOPE_DEVICE)
    as cl_device_atomic_capabilities;

/// CL_DEVICE_ATOMIC_FENCE_CAPABILITIES: atomic_work_item_fence as membar.cta / membar.gl. Not
/// work-item scope (CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM, for image fences): whether a membar orders
/// surface stores before surface loads of the same work-item is not verified.
pub const ATOMIC_FENCE_CAPABILITIES: cl_device_atomic_capabilities = (CL_DEVICE_ATOMIC_ORDER_RELAXED
    | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
    | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
    | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
    | CL_DEVICE_ATOMIC_SCOPE_DEVICE)
    as cl_device_atomic_capabilities;

/// CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: cudacl has not been through Khronos's formal
/// conformance process; this is the value non-conformant implementations report (Mesa's too).
pub const LATEST_CONFORMANCE_VERSION_PASSED: &str = "v0000-01-01-00";

/// The space-separated form of an extension table (CL_*_EXTENSIONS).
pub fn names(table: &[(&str, cl_version)]) -> String {
    table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" ")
}

/// A `cl_name_version` with `name` truncated to CL_NAME_VERSION_MAX_NAME_SIZE - 1 bytes.
pub fn name_version(name: &str, version: cl_version) -> cl_name_version {
    let mut nv = cl_name_version { version, name: [0; CL_NAME_VERSION_MAX_NAME_SIZE as usize] };
    for (dst, b) in nv.name.iter_mut().zip(name.bytes().take(CL_NAME_VERSION_MAX_NAME_SIZE as usize - 1)) {
        *dst = b as std::ffi::c_char;
    }
    nv
}

/// A table as `cl_name_version` entries (the *_WITH_VERSION queries).
pub fn with_version(table: &[(&str, cl_version)]) -> Vec<cl_name_version> {
    table.iter().map(|&(n, v)| name_version(n, v)).collect()
}

/// CL_DEVICE_OPENCL_C_ALL_VERSIONS.
pub fn opencl_c_all_versions() -> Vec<cl_name_version> {
    OPENCL_C_VERSIONS.iter().map(|&v| name_version("OpenCL C", v)).collect()
}

/// CL_DEVICE_OPENCL_C_FEATURES.
pub fn opencl_c_features() -> Vec<cl_name_version> {
    OPENCL_C_FEATURES.iter().map(|&n| name_version(n, make_version(3, 0, 0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_encode_as_cl_make_version() {
        assert_eq!(OPENCL_VERSION, 0x00C0_0000);
        assert_eq!(make_version(1, 2, 0), (1 << 22) | (2 << 12));
        assert_eq!(make_version(1, 0, 3), (1 << 22) | 3);
    }

    #[test]
    fn names_fit_and_terminate() {
        let nv = name_version(&"x".repeat(100), 1);
        assert_eq!(nv.name[62], b'x' as std::ffi::c_char);
        assert_eq!(nv.name[63], 0);
        assert!(names(DEVICE_EXTENSIONS).contains("cl_khr_fp64 cl_khr_global_int32_base_atomics"));
    }

    #[test]
    fn il_is_reported_exactly_when_a_translator_is_there() {
        let il = ptxgen::il_supported();
        let has = |t: &[(&str, cl_version)]| t.iter().any(|(n, _)| *n == "cl_khr_il_program");
        assert_eq!(has(&device_extensions()), il);
        assert_eq!(has(&platform_extensions()), il);
        assert_eq!(ils_with_version().len(), if il { ptxgen::SPIRV_VERSIONS.len() } else { 0 });
        if il {
            assert!(il_version().starts_with("SPIR-V_1.0 SPIR-V_1.1"), "{}", il_version());
        } else {
            assert_eq!(il_version(), "");
        }
    }

    #[test]
    fn capabilities_are_consistent() {
        // The 3.0 minimums (API spec, CL_DEVICE_ATOMIC_*_CAPABILITIES).
        let min_mem = (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP) as u64;
        let min_fence = (CL_DEVICE_ATOMIC_ORDER_RELAXED
            | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
            | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP) as u64;
        assert_eq!(ATOMIC_MEMORY_CAPABILITIES & min_mem, min_mem);
        assert_eq!(ATOMIC_FENCE_CAPABILITIES & min_fence, min_fence);
        // Each feature macro matches its capability bit.
        let has = |f: &str| OPENCL_C_FEATURES.contains(&f);
        let bit = |b: u32| ATOMIC_MEMORY_CAPABILITIES & b as u64 != 0;
        assert_eq!(has("__opencl_c_atomic_order_acq_rel"), bit(CL_DEVICE_ATOMIC_ORDER_ACQ_REL));
        assert_eq!(has("__opencl_c_atomic_order_seq_cst"), bit(CL_DEVICE_ATOMIC_ORDER_SEQ_CST));
        assert_eq!(has("__opencl_c_atomic_scope_device"), bit(CL_DEVICE_ATOMIC_SCOPE_DEVICE));
        assert_eq!(has("__opencl_c_atomic_scope_all_devices"), bit(CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES));
    }
}
