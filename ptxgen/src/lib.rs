//! ptxgen: OpenCL C -> PTX in process.
//!
//! THE PUBLIC CONTRACT BELOW IS WHAT cudacl (src/core/program.rs, kernel.rs, src/api/kernel_args.rs)
//! CODES AGAINST.
//! Change it only in agreement with the cudacl side.

//! See README.md for the pipeline, the libclc search order, the caches and the CLI.

#![warn(clippy::undocumented_unsafe_blocks)]

mod binary;
mod builtin_library;
mod cache;
mod callseq;
mod ffi;
mod headers;
mod il;
mod images;
mod info;
mod libclc;
mod mathlib;
pub mod options;
mod pipeline;
mod spec_constants;
mod spirv;
mod split;
mod subgroups;
pub mod target;

pub use pipeline::{build_timed, catch_panic, prewarm, set_shared_context, Stage};
pub use spec_constants::SpecConstant;
pub use spirv::SPIRV_VERSIONS;
pub use split::set_build_threads;

/// Whether SPIR-V programs can be built here: a SPIR-V translator (llvm-spirv) was found
/// (spirv.rs says where it is looked for). The runtime reports IL support only then.
pub fn il_supported() -> bool {
    spirv::translator().is_some()
}

/// The specialization constants of a SPIR-V module: (SpecId, size in bytes) of each.
pub fn il_spec_constants(il: &[u8]) -> Result<Vec<(u32, usize)>, String> {
    spec_constants::list(il)
}

/// clBuildProgram of a program made from SPIR-V (clCreateProgramWithIL), with the values
/// clSetProgramSpecializationConstant gave. Cached like `build`.
pub fn build_il(
    il: &[u8],
    spec: &[SpecConstant],
    options: &str,
    target: &Target,
) -> Result<Program, BuildError> {
    il::build_il(il, spec, options, target)
}

/// clCompileProgram of a SPIR-V program: an `Object` that `link` takes like a compiled source.
pub fn compile_il(il: &[u8], spec: &[SpecConstant], options: &str) -> Result<Object, BuildError> {
    il::compile_il(il, spec, options)
}

/// The optional OpenCL C 3.0 features whose macros a `-cl-std=CL3.0` build defines (and the
/// runtime reports in CL_DEVICE_OPENCL_C_FEATURES): images (images.cl), 3D image writes, fp64,
/// int64, the C11 atomics with acquire/release and sequentially consistent orders up to device
/// scope (bridge/atomics.cpp), half precision (cl_khr_fp16, bridge/half.cpp) and sub-groups
/// (warps, subgroups.cl). Not offered: the generic address space, pipes, device-side enqueue,
/// program-scope global variables, read-write images, work-group collectives, all-devices
/// atomic scope.
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_images",
    "__opencl_c_3d_image_writes",
    "__opencl_c_fp64",
    "__opencl_c_int64",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_fp16",
    "__opencl_c_subgroups",
];

/// ptxgen's version as recorded in binaries and cache keys (the suffix is the revision of the
/// kernel ABI: implicit arguments, local-memory rewrite, printf lowering, vector arguments aligned
/// at most 16; abi4: __global/__constant pointer arguments are assumed 128-byte aligned; abi5: image
/// arguments are descriptor pointers and sampler arguments the CLK_* bits).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+abi5");

/// Where libclc is found (see README.md), or why it is not.
pub fn libclc_path() -> Result<std::path::PathBuf, String> {
    libclc::locate().map(|(p, _)| p)
}

/// The disk cache folder in effect (None when turned off or no folder can be named).
pub fn cache_dir() -> Option<std::path::PathBuf> {
    if cache::disk_enabled() {
        cache::dir()
    } else {
        None
    }
}

/// What the PTX is generated for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// sm_XX to generate for, already clamped to what LLVM 19 knows (e.g. 90 for an H100).
    pub sm: u32,
    /// PTX ISA version, e.g. (8, 5) -> ".version 8.5".
    pub ptx_isa: (u32, u32),
}

impl Target {
    /// From the device's compute capability and cuDriverGetVersion() (e.g. 13000).
    pub fn for_device(cc_major: i32, cc_minor: i32, driver_version: i32) -> Target {
        target::for_device(cc_major, cc_minor, driver_version)
    }
}

/// How an argument is passed, as clSetKernelArg must treat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// __global pointer: an 8-byte CUdeviceptr in the parameter buffer.
    GlobalPtr,
    /// __constant pointer: an 8-byte CUdeviceptr in the parameter buffer.
    ConstantPtr,
    /// __local pointer, rewritten by ptxgen into a u32 byte offset into the one dynamic
    /// shared-memory array; clSetKernelArg takes (size, NULL); the runtime writes the offset.
    LocalPtr,
    /// Scalar by value (char..double, size_t, half is not supported).
    Scalar,
    /// Vector by value (float4, int3 (size 16) ...).
    Vector,
    /// Struct/union by value, laid out as OpenCL C (clang) lays it out.
    Struct,
    /// sampler_t: an 8-byte slot (size 8, align 8) holding the OpenCL C sampler bits as a u64
    /// (CLK_NORMALIZED_COORDS_TRUE 1, CLK_ADDRESS_* 0/2/4/6/8, CLK_FILTER_NEAREST 0x10 /
    /// LINEAR 0x20); in-kernel `const sampler_t` values become the same bits.
    Sampler,
    /// image1d/1d_buffer/1d_array/2d/2d_array/3d_t: an 8-byte __global pointer (size 8, align 8)
    /// to the image's 64-byte descriptor in device memory (surface object, buffer address,
    /// width, height, depth, array size, cl.h channel order and data type, element size,
    /// channels, image type: see README.md, "Images"). Its dimension and the access the kernel
    /// declared (also `ArgInfo::access_qualifier`).
    Image { dim: ImageDim, access: AccessQualifier },
}

/// The image type of an image argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    Image1d,
    Image1dBuffer,
    Image1dArray,
    Image2d,
    Image2dArray,
    Image3d,
    /// Another image type (a depth or multisample one): any image matches it.
    Other,
}

impl ImageDim {
    /// The image type an OpenCL C type name declares (clang's kernel_arg_type spelling:
    /// image1d_t, image2d_array_t, image1d_buffer_t...); None when it is no image.
    pub(crate) fn of_type_name(t: &str) -> Option<ImageDim> {
        if !(t.starts_with("image")
            && t.ends_with("_t")
            && (t.contains("1d") || t.contains("2d") || t.contains("3d")))
        {
            return None;
        }
        Some(match t {
            "image1d_t" => ImageDim::Image1d,
            "image1d_array_t" => ImageDim::Image1dArray,
            "image1d_buffer_t" => ImageDim::Image1dBuffer,
            "image2d_t" => ImageDim::Image2d,
            "image2d_array_t" => ImageDim::Image2dArray,
            "image3d_t" => ImageDim::Image3d,
            _ => ImageDim::Other,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressQualifier {
    Global,
    Constant,
    Local,
    Private,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    ReadWrite,
    None,
}

/// One user-visible kernel argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgInfo {
    pub kind: ArgKind,
    /// The size clSetKernelArg must be given (8 for pointers, the by-value size otherwise;
    /// for LocalPtr this is 4, the size of the offset slot, and clSetKernelArg's size is the
    /// number of shared bytes wanted instead).
    pub size: u32,
    pub align: u32,
    /// Byte offset of this argument's slot in the CUDA parameter buffer.
    pub offset: u32,
    pub name: String,
    /// e.g. "float*", "int4", "struct foo"
    pub type_name: String,
    pub address_qualifier: AddressQualifier,
    pub access_qualifier: AccessQualifier,
    /// Bit set of CL_KERNEL_ARG_TYPE_CONST (1) | RESTRICT (2) | VOLATILE (4).
    pub type_qualifier: u64,
}

/// The most bytes the implicit parameters take after the user's: global offset (24), work_dim
/// (4) and groups (24), 52 bytes, after at most 7 bytes of alignment. The runtime keeps this
/// much of the driver's parameter limit out of CL_DEVICE_MAX_PARAMETER_SIZE.
pub const IMPLICIT_PARAMS_MAX_BYTES: usize = 64;

/// Parameters ptxgen appends after the user's, filled in by the runtime at each launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImplicitKind {
    /// 3 x u64: the global work offset of each dimension.
    GlobalOffset,
    /// u32: work_dim.
    WorkDim,
    /// 6 x u32: the first group of this launch in each dimension, then the number of groups of
    /// the whole NDRange in each (a launch with more groups than CUDA's grid allows in y or z
    /// is issued in pieces).
    Groups,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImplicitArg {
    pub kind: ImplicitKind,
    pub offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    pub args: Vec<ArgInfo>,
    pub implicit: Vec<ImplicitArg>,
    /// Size in bytes of the parameter buffer: exactly where the last (implicit) parameter ends,
    /// unpadded, as CU_LAUNCH_PARAM_BUFFER_SIZE must say.
    pub param_size: u32,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
    /// The attribute string for CL_KERNEL_ATTRIBUTES (e.g. "reqd_work_group_size(16,16,1)").
    pub attributes: String,
}

/// A built program: PTX for one target plus what the runtime needs to know about its kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub ptx: String,
    pub target: Target,
    pub options: String,
    /// Warnings (clang diagnostics "<source>:line:col: warning: ...").
    pub log: String,
    pub kernels: Vec<KernelInfo>,
}

/// A compiled but not linked object (clCompileProgram's output): LLVM bitcode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub bitcode: Vec<u8>,
    pub options: String,
    pub log: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// An option OpenCL 1.2 does not know -> CL_INVALID_BUILD_OPTIONS (log says why).
    InvalidOptions { log: String },
    /// Compile error, link error or LLVM failure -> CL_BUILD_PROGRAM_FAILURE (log says why).
    Failed { log: String },
}

/// clBuildProgram: source + options -> PTX + kernel layout. Uses the in-process and disk caches.
pub fn build(source: &str, options: &str, target: &Target) -> Result<Program, BuildError> {
    pipeline::build(source, options, target)
}

/// clCompileProgram: source + options + embedded headers (name as #include'd, contents).
pub fn compile(source: &str, options: &str, headers: &[(&str, &str)]) -> Result<Object, BuildError> {
    pipeline::compile(source, options, headers)
}

/// clLinkProgram: objects (from compile) -> Program. Options: -create-library is handled by the
/// caller; the link options -cl-denorms-are-zero, -cl-no-signed-zeros, ... are accepted.
pub fn link(objects: &[&Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    pipeline::link(objects, options, target)
}

impl Program {
    /// cudacl's program binary (CL_PROGRAM_BINARIES): a versioned container around the PTX and
    /// the kernel layout. `from_binary` rejects other formats/versions with a reason.
    pub fn to_binary(&self) -> Vec<u8> {
        binary::to_binary(self)
    }
    pub fn from_binary(bytes: &[u8]) -> Result<Program, String> {
        binary::from_binary(bytes)
    }
    /// Whether the program was built with -cl-kernel-arg-info (clGetKernelArgInfo must answer
    /// CL_KERNEL_ARG_INFO_NOT_AVAILABLE otherwise). The ArgInfo names/type names are filled in
    /// either way.
    pub fn has_arg_info(&self) -> bool {
        options::RuntimeOptions::of(&self.options).kernel_arg_info
    }
}

impl Object {
    /// Whether the object was compiled with -cl-kernel-arg-info (as `Program::has_arg_info`).
    pub fn has_arg_info(&self) -> bool {
        options::RuntimeOptions::of(&self.options).kernel_arg_info
    }
}
