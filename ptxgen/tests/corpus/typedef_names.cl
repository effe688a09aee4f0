// KERNELS: names
// Argument kinds come from the IR types, not from look-alike type names.
typedef float image_scale_t;
typedef struct { int sampler_t_like; } sampler_cfg;
__kernel void names(__global float *out, image_scale_t s, sampler_cfg c) { out[0] = s + c.sampler_t_like; }
