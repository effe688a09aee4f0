// KERNELS: k
// tgamma over its whole range through one helper (__cudacl_tgamma_f64): the recurrence into
// [1, 2) with a scaled double-double product for x in [-256, 172], signed zeros to +-inf, float
// through double; scalar and per lane.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global double *d, __global double2 *v, __global float *f, __global float4 *g) {
  size_t i = get_global_id(0);
  d[i] = tgamma(d[i]);
  v[i] = tgamma(v[i]);
  f[i] = tgamma(f[i]);
  g[i] = tgamma(g[i]);
}
