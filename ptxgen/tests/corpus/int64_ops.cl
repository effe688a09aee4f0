// KERNELS: i64
__kernel void i64(__global long *a, __global ulong *b) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 3 / 7 % 11 + (a[i] >> 5) + mul_hi(a[i], a[i]) + abs(a[i]);
  b[i] = b[i] / 13 + (b[i] << 7) + rotate(b[i], 17UL) + max(b[i], 5UL) + hadd(b[i], 1UL);
}
