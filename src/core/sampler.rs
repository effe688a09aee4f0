//! Samplers: the three settings of clCreateSampler, and the bits a kernel's sampler_t argument
//! receives (OpenCL C's CLK_* values, as ptxgen/README.md's "Images" section says: the kernel side decodes the
//! same numbers for sampler arguments and in-kernel `const sampler_t` initialisers).
use super::context::Context;
use crate::base::handle::Cl;
use crate::cl::*;
use std::sync::Arc;

pub struct Sampler {
    pub context: Arc<Cl<Context>>,
    pub normalized: bool,
    /// CL_ADDRESS_NONE ... CL_ADDRESS_MIRRORED_REPEAT.
    pub addressing: cl_addressing_mode,
    /// CL_FILTER_NEAREST or CL_FILTER_LINEAR.
    pub filter: cl_filter_mode,
    /// Given as properties (clCreateSamplerWithProperties): the list, 0-terminated, for
    /// CL_SAMPLER_PROPERTIES; empty otherwise.
    pub properties: Vec<cl_sampler_properties>,
}
crate::cl_object!(Sampler, cl_sampler, CL_INVALID_SAMPLER);

impl Sampler {
    /// CL_INVALID_VALUE for an addressing or filter mode OpenCL 1.2 does not define.
    pub fn new(
        context: Arc<Cl<Context>>,
        normalized: bool,
        addressing: cl_addressing_mode,
        filter: cl_filter_mode,
    ) -> Result<Sampler, cl_int> {
        let modes = [
            CL_ADDRESS_NONE,
            CL_ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_CLAMP,
            CL_ADDRESS_REPEAT,
            CL_ADDRESS_MIRRORED_REPEAT,
        ];
        if !modes.iter().any(|&m| m as cl_addressing_mode == addressing)
            || !(filter == CL_FILTER_NEAREST as cl_filter_mode
                || filter == CL_FILTER_LINEAR as cl_filter_mode)
        {
            return Err(CL_INVALID_VALUE);
        }
        Ok(Sampler { context, normalized, addressing, filter, properties: Vec::new() })
    }

    /// The value a sampler_t kernel argument's slot gets: CLK_NORMALIZED_COORDS_TRUE (1) |
    /// CLK_ADDRESS_* (NONE 0, CLAMP_TO_EDGE 2, CLAMP 4, REPEAT 6, MIRRORED_REPEAT 8) |
    /// CLK_FILTER_* (NEAREST 0x10, LINEAR 0x20).
    pub fn bits(&self) -> u64 {
        let addressing = match self.addressing {
            CL_ADDRESS_CLAMP_TO_EDGE => 2,
            CL_ADDRESS_CLAMP => 4,
            CL_ADDRESS_REPEAT => 6,
            CL_ADDRESS_MIRRORED_REPEAT => 8,
            _ => 0,
        };
        let filter = if self.filter == CL_FILTER_LINEAR { 0x20 } else { 0x10 };
        self.normalized as u64 | addressing | filter
    }
}
