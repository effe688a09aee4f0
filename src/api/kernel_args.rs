//! clSetKernelArg's checks: each argument kind's value against the specification's error
//! conditions (OpenCL 3.0, 5.9.2 "Setting Kernel Arguments"), before `Kernel::store_arg` records
//! it. The kinds are ptxgen's (`ptxgen::ArgKind`), read from the kernel's signature.
use crate::base::entry::CLResult;
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::kernel::{ArgValue, Kernel};
use crate::core::memory::Mem;
use crate::core::sampler::Sampler;
use ptxgen::{AccessQualifier, ArgKind, ImageDim};
use std::ffi::c_void;
use std::sync::Arc;

/// clSetKernelArg (and clUpdateMutableCommandsKHR's argument updates) on `k`.
///
/// # Safety
/// `value` is NULL or points to `size` readable bytes (the OpenCL API contract).
pub unsafe fn set_kernel_arg(k: &Kernel, index: u32, size: usize, value: *const c_void) -> CLResult<()> {
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    let a = k.shape.info.args.get(index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    let v = match a.kind {
        ArgKind::GlobalPtr | ArgKind::ConstantPtr => {
            // "CL_INVALID_ARG_SIZE if ... the argument is a memory object and arg_size !=
            // sizeof(cl_mem)."
            if size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // A NULL arg_value, or one pointing to NULL, is a NULL buffer: "If the argument is a
            // buffer object, the arg_value pointer can be NULL or point to a NULL value".
            let h: cl_mem =
                // SAFETY: a memory-object argument's value points to a cl_mem (size checked above).
                if value.is_null() { std::ptr::null_mut() } else { unsafe { *(value as *const cl_mem) } };
            if h.is_null() {
                ArgValue::Mem(None)
            } else {
                // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
                // specified arg_value is not a valid memory object": not a handle, a memory
                // object of another context, or an image given for a buffer.
                let m = Cl::<Mem>::get(h).map_err(|_| CL_INVALID_MEM_OBJECT)?;
                if !Arc::ptr_eq(&m.context, &k.program.context) || m.image.is_some() {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                ArgValue::Mem(Some(Arc::downgrade(&m)))
            }
        }
        ArgKind::LocalPtr => {
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value": a __local
            // argument's arg_value "must be NULL".
            if !value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // "CL_INVALID_ARG_SIZE if ... arg_size is zero and the argument is declared with the
            // local qualifier" (and a size the parameter buffer's offsets cannot hold).
            if size == 0 || size > u32::MAX as usize / 2 {
                return Err(CL_INVALID_ARG_SIZE);
            }
            ArgValue::Local(size as u32)
        }
        ArgKind::Sampler => {
            // "CL_INVALID_ARG_SIZE if ... the argument is a sampler and arg_size !=
            // sizeof(cl_sampler)."
            if size != std::mem::size_of::<cl_sampler>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
            // specified arg_value is not a valid sampler object" (none, a stale handle, or a
            // sampler of another context).
            if value.is_null() {
                return Err(CL_INVALID_SAMPLER);
            }
            // SAFETY: a sampler argument's value points to a cl_sampler (size checked above).
            let h = unsafe { *(value as *const cl_sampler) };
            let s = Cl::<Sampler>::get(h)?;
            if !Arc::ptr_eq(&s.context, &k.program.context) {
                return Err(CL_INVALID_SAMPLER);
            }
            ArgValue::Word(s.bits())
        }
        ArgKind::Image { dim, access } => {
            // "CL_INVALID_ARG_SIZE if ... the argument is a memory object and arg_size !=
            // sizeof(cl_mem)."
            if size != std::mem::size_of::<cl_mem>() {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value": an image
            // argument has no NULL value.
            if value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // SAFETY: an image argument's value points to a cl_mem (size checked above).
            let h = unsafe { *(value as *const cl_mem) };
            let m = Cl::<Mem>::get(h)?;
            // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
            // specified arg_value is not a valid memory object": a buffer, an image of another
            // context, or an image of another kind than the argument's (an image3d_t given a
            // 2-D image: the kernel would address its surface with the wrong geometry).
            let wrong_kind = match (&m.image, declared_type(dim)) {
                (None, _) => true,
                (Some(img), Some(ty)) => img.shape.ty != ty,
                (Some(_), None) => false,
            };
            if !Arc::ptr_eq(&m.context, &k.program.context) || wrong_kind {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            // "CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only
            // qualifier and arg_value refers to an image object created with cl_mem_flags of
            // CL_MEM_WRITE_ONLY or if the image argument is declared with the write_only
            // qualifier and arg_value refers to an image object created with cl_mem_flags of
            // CL_MEM_READ_ONLY."
            let refused = match access {
                AccessQualifier::ReadOnly => CL_MEM_WRITE_ONLY,
                AccessQualifier::WriteOnly => CL_MEM_READ_ONLY,
                _ => 0,
            };
            if m.flags & refused as cl_mem_flags != 0 {
                return Err(CL_INVALID_ARG_VALUE);
            }
            ArgValue::Mem(Some(Arc::downgrade(&m)))
        }
        ArgKind::Scalar | ArgKind::Vector | ArgKind::Struct => {
            // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
            // argument that is not a memory object."
            if size != a.size as usize {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value": a by-value
            // argument needs its bytes.
            if value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // SAFETY: value has size readable bytes (this function's contract).
            ArgValue::Bytes(unsafe { std::slice::from_raw_parts(value as *const u8, size) })
        }
    };
    k.store_arg(index as usize, v)
}

/// The memory object type an image argument's declared type takes (None: any image).
fn declared_type(dim: ImageDim) -> Option<cl_mem_object_type> {
    Some(match dim {
        ImageDim::Image1d => CL_MEM_OBJECT_IMAGE1D,
        ImageDim::Image1dArray => CL_MEM_OBJECT_IMAGE1D_ARRAY,
        ImageDim::Image1dBuffer => CL_MEM_OBJECT_IMAGE1D_BUFFER,
        ImageDim::Image2d => CL_MEM_OBJECT_IMAGE2D,
        ImageDim::Image2dArray => CL_MEM_OBJECT_IMAGE2D_ARRAY,
        ImageDim::Image3d => CL_MEM_OBJECT_IMAGE3D,
        ImageDim::Other => return None,
    })
}
