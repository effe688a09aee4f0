// KERNELS: vls
__kernel void vls(__global const float *in, __global float *out, __global half *h, __constant float *c) {
  size_t i = get_global_id(0);
  float4 v = vload4(i, in) + vload4(0, c);
  vstore4(v, i, out);
  float x = vload_half(i, h);
  vstore_half(x * 2.0f, i, h);
  float2 w = vload2(i, in);
  vstore2(w, i + 100, out);
}
