// KERNELS: saxpy scale reduce_local transpose histogram stencil
// The 6-kernel source the benchmark builds.
__kernel void saxpy(float a, __global const float *x, __global float *y, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void scale(__global float4 *v, float s) { v[get_global_id(0)] *= s; }
__kernel void reduce_local(__global const float *in, __global float *out, __local float *tmp) {
  uint l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
__kernel void transpose(__global const float *in, __global float *out, uint w, uint h) {
  __local float tile[16][17];
  uint x = get_global_id(0), y = get_global_id(1);
  if (x < w && y < h) tile[get_local_id(1)][get_local_id(0)] = in[y * w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = get_group_id(1) * 16 + get_local_id(0), oy = get_group_id(0) * 16 + get_local_id(1);
  if (ox < h && oy < w) out[oy * h + ox] = tile[get_local_id(0)][get_local_id(1)];
}
__kernel void histogram(__global const uchar *data, __global uint *bins, uint n) {
  size_t i = get_global_id(0);
  if (i < n) atomic_inc(&bins[data[i]]);
}
__kernel void stencil(__global const float *in, __global float *out, uint n) {
  size_t i = get_global_id(0);
  if (i > 0 && i + 1 < n) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1] + exp(-in[i]);
}
