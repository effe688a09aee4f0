// KERNELS: shuf
__kernel void shuf(__global float4 *a, __global float8 *b) {
  size_t i = get_global_id(0);
  a[i] = shuffle(a[i], (uint4)(3, 2, 1, 0));
  b[i] = shuffle2(a[i], a[i + 1], (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
}
