// KERNELS: reduce_sum
// Sum of `in` per work-group into out[group], with a __local scratch argument.
__kernel void reduce_sum(__global const float *in, __global float *out, __local float *scratch, uint n) {
  uint l = get_local_id(0), g = get_global_id(0);
  scratch[l] = g < n ? in[g] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}
