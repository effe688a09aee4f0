// KERNELS: vec_ops
__kernel void vec_ops(__global float4 *f, __global int2 *i2, __global uchar16 *u, int3 k3, float2 s, short8 sh) {
  size_t g = get_global_id(0);
  f[g] = f[g] * (float4)(s.x, s.y, 1.0f, 2.0f) + (float4)(k3.x, k3.y, k3.z, 0);
  i2[g] = i2[g].yx + (int2)(sh.s0, sh.s7);
  u[g] = u[g] + (uchar16)(1);
}
