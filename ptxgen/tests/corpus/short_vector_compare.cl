// KERNELS: cmp2 cmp4 cmp16
// Compares of packed 8/16-bit vectors (short2/ushort2, char4) used to abort LLVM's NVPTX back
// end ("Cannot select: v2i16 = setcc"); the CTS's integer_ops quick_short_* tests do these.
__kernel void cmp2(__global short2 *a, __global short2 *b, __global short2 *o, __global ushort2 *u,
                   __global ushort2 *v) {
  size_t i = get_global_id(0);
  o[5 * i] = a[i] < b[i];
  o[5 * i + 1] = a[i] && b[i];
  o[5 * i + 2] = !a[i];
  o[5 * i + 3] = a[i] == b[i] ? a[i] : b[i];
  o[5 * i + 4] = (a[i] >= b[i]) || (a[i] != b[i]);
  u[2 * i] = as_ushort2(u[i] > v[i]);
  u[2 * i + 1] = u[i] != v[i] ? u[i] : v[i];
}
__kernel void cmp4(__global char4 *a, __global char4 *b, __global char4 *o, __global uchar2 *u) {
  size_t i = get_global_id(0);
  o[2 * i] = a[i] < b[i];
  o[2 * i + 1] = a[i] || b[i];
  u[i] = as_uchar2(!as_char2(u[i + 1]));
}
__kernel void cmp16(__global short8 *s, __global ushort16 *t) {
  size_t i = get_global_id(0);
  s[i] = (s[i] > s[i + 1]) || !s[i + 2];
  t[i] = t[i] == t[i + 1] ? t[i + 2] : t[i + 3];
}
