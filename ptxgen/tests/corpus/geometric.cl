// KERNELS: geo
__kernel void geo(__global float4 *a, __global float4 *b, __global float *r) {
  size_t i = get_global_id(0);
  r[i] = dot(a[i], b[i]) + length(a[i]) + distance(a[i], b[i]) + fast_length(b[i]);
  a[i] = normalize(a[i]) + cross(a[i], b[i]) + fast_normalize(b[i]);
}
