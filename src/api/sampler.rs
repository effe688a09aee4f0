//! Samplers: creation, reference counts and clGetSamplerInfo (core::sampler holds the object).
use super::args::property_pairs;
use super::info::InfoOut;
use crate::base::entry::{entry, entry_ret};
use crate::base::handle::Cl;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::sampler::Sampler;
use std::ffi::c_void;

#[no_mangle]
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        Ok(Cl::new_handle(Sampler::new(c, normalized_coords != CL_FALSE, addressing_mode, filter_mode)?))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

/// The OpenCL 2.0 form: CL_SAMPLER_NORMALIZED_COORDS, CL_SAMPLER_ADDRESSING_MODE and
/// CL_SAMPLER_FILTER_MODE, each at most once (defaults CL_TRUE, CLAMP, NEAREST).
#[no_mangle]
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || {
        let c = Cl::<Context>::get(context)?;
        let (mut norm, mut addr, mut filter) = (None, None, None::<cl_filter_mode>);
        let mut list = Vec::new();
        // SAFETY: NULL or a 0-terminated (name, value) list, as the spec requires of the caller.
        for (name, value) in unsafe { property_pairs(properties) } {
            list.extend([name, value]);
            let slot_taken = match name as u32 {
                CL_SAMPLER_NORMALIZED_COORDS => norm.replace(value).is_some(),
                CL_SAMPLER_ADDRESSING_MODE => addr.replace(value as cl_addressing_mode).is_some(),
                CL_SAMPLER_FILTER_MODE => filter.replace(value as cl_filter_mode).is_some(),
                _ => return Err(CL_INVALID_VALUE),
            };
            if slot_taken {
                return Err(CL_INVALID_VALUE);
            }
        }
        if !properties.is_null() {
            list.push(0);
        }
        let norm = norm.unwrap_or(CL_TRUE as cl_sampler_properties);
        if norm != CL_TRUE as cl_sampler_properties && norm != CL_FALSE as cl_sampler_properties {
            return Err(CL_INVALID_VALUE);
        }
        let mut s = Sampler::new(
            c,
            norm == CL_TRUE as cl_sampler_properties,
            addr.unwrap_or(CL_ADDRESS_CLAMP as cl_addressing_mode),
            filter.unwrap_or(CL_FILTER_NEAREST as cl_filter_mode),
        )?;
        s.properties = list;
        Ok(Cl::new_handle(s))
    };
    // SAFETY: errcode_ret is NULL or points to a cl_int, as the spec requires of the caller.
    unsafe { entry_ret(errcode_ret, body) }
}

#[no_mangle]
pub unsafe extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    entry(|| Cl::<Sampler>::retain(sampler))
}

#[no_mangle]
pub unsafe extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    entry(|| Cl::<Sampler>::release(sampler))
}

#[no_mangle]
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    entry(|| {
        let s = Cl::<Sampler>::get(sampler)?;
        // SAFETY: param_value has param_value_size writable bytes (or is NULL), param_value_size_ret
        // is NULL or a size_t: the spec's contract for every clGet*Info.
        let out = unsafe { InfoOut::new(param_value_size, param_value, param_value_size_ret) };
        match param_name {
            CL_SAMPLER_REFERENCE_COUNT => out.value::<cl_uint>(s.ref_count()),
            CL_SAMPLER_CONTEXT => out.value(s.context.handle()),
            CL_SAMPLER_NORMALIZED_COORDS => out.bool(s.normalized),
            CL_SAMPLER_ADDRESSING_MODE => out.value::<cl_addressing_mode>(s.addressing),
            CL_SAMPLER_FILTER_MODE => out.value::<cl_filter_mode>(s.filter),
            CL_SAMPLER_PROPERTIES => out.slice::<cl_sampler_properties>(&s.properties),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
