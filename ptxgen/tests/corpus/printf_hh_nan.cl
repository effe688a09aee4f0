// KERNELS: p
// printf's hh length (CUDA's vprintf misreads it) as a plain conversion of the truncated value,
// scalar and in vectors; nan(0UL) is a quiet NaN (libclc gave +inf).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void p(__global double *d, __global float4 *f) {
  uchar2 tmp = (uchar2)(0xFA, 0xFB);
  printf("%#v2hhx\n", tmp);
  printf("%hhd %hhd %hhu\n", 127, -128, 255);
  d[0] = nan(0UL);
  f[0] = nan((uint4)(0, 1, 2, 3));
  printf("%f\n", nan(0UL));
}
