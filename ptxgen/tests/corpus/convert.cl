// KERNELS: conv
__kernel void conv(__global float4 *f, __global int4 *i, __global uchar4 *u, __global float *g) {
  size_t k = get_global_id(0);
  i[k] = convert_int4_sat_rte(f[k]) + convert_int4(u[k]) + as_int4(f[k]);
  u[k] = convert_uchar4_sat(i[k]);
  f[k] = convert_float4(i[k]) + as_float4(i[k]);
  g[k] = as_float(as_uint(g[k]) ^ 0x80000000u) + convert_float_rtz((long)k);
}
