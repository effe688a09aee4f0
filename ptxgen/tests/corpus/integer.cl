// KERNELS: ints
__kernel void ints(__global int *a, __global uint *b, __global long *c, __global uchar *d) {
  size_t i = get_global_id(0);
  a[i] = abs(a[i]) + clz(a[i]) + popcount(a[i]) + rotate(a[i], 3) + mul_hi(a[i], 7) + add_sat(a[i], 100) +
         hadd(a[i], 5) + rhadd(a[i], 9) + mad24(a[i], 3, 1) + mul24(a[i], 5) + max(a[i], 2) + min(a[i], 9) +
         sub_sat(a[i], 3) + mad_hi(a[i], 2, 1) + mad_sat(a[i], 2, 3);
  b[i] = abs_diff(b[i], 17u) + clamp(b[i], 1u, 100u) + (uint)upsample((ushort)b[i], (ushort)3);
  c[i] = mul_hi(c[i], 3L) + clz(c[i]) + popcount(c[i]) + upsample(a[i], b[i]) + rotate(c[i], 5L);
  d[i] = add_sat(d[i], (uchar)200);
}
