// mul24/mad24 on scalars and vectors: plain 32-bit multiplies (see defineFast24 in the bridge).
// KERNELS: fast24
__kernel void fast24(__global int *a, __global uint *b, __global int4 *c, __global uint2 *d) {
  size_t i = get_global_id(0);
  a[i] = mul24(a[i], 7) + mad24(a[i], -3, 11);
  b[i] = mul24(b[i], 5u) + mad24(b[i], 9u, 2u);
  c[i] = mad24(c[i], (int4)(1, 2, 3, 4), (int4)(5));
  d[i] = mul24(d[i], d[i]);
}
