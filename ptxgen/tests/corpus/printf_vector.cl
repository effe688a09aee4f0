// KERNELS: pvec
// OpenCL vector conversions are expanded per element for vprintf.
__kernel void pvec(__global float4 *f, __global int2 *i, __global uchar4 *c, __global double2 *d) {
  printf("f=%v4f i=%v2d c=%#v4hhx d=%v2lf done %d%%\n", f[0], i[0], c[0], d[0], 7);
  printf("hl=%v4hlf\n", f[1]);
}
