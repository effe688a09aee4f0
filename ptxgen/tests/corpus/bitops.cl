// KERNELS: bits
__kernel void bits(__global uint *a, __global ushort8 *s) {
  size_t i = get_global_id(0);
  a[i] = (a[i] & 0xFF00FF00u) | (~a[i] >> 3) ^ (a[i] << 5);
  s[i] = (s[i] << (ushort8)(1)) | (s[i] >> (ushort8)(15));
}
