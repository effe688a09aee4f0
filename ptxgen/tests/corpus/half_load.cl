// KERNELS: halves
__kernel void halves(__global const half *h, __global float4 *f) {
  size_t i = get_global_id(0);
  f[i] = vload_half4(i, h) + (float4)(vload_half(0, h));
  vstore_half4_rte(f[i], i, (__global half *)h);
}
