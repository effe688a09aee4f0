// KERNELS: sample_test
// ctz (OpenCL C 2.0) for OpenCL C 1.2 programs that call it: the CTS integer_ctz test.
__kernel void sample_test(__global char *a, __global char *d, __global ulong4 *u, __global short3 *s) {
  int tid = get_global_id(0);
  d[tid] = ctz(a[tid]);
  u[tid] = ctz(u[tid]);
  s[tid] = ctz(s[tid]);
}
