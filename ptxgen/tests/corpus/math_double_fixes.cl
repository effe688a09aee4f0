// KERNELS: k
// ldexp(double) defined by ptxgen (libclc's answers NaN with inf or 0 and wraps large exponents);
// frexp(double NaN/inf) and tgamma far below zero fixed at the call.
__kernel void k(__global double *d, __global double4 *v, __global int *n, __global int4 *n4, __global float *f) {
  size_t i = get_global_id(0);
  int e;
  d[i] = ldexp(d[i], n[i]) + frexp(d[i+1], &e) + tgamma(d[i+2]);
  v[i] = ldexp(v[i], n4[i]) + ldexp(v[i+1], n[i]) + frexp(v[i+2], n4 + i + 1) + tgamma(v[i+3]);
  f[i] = tgamma(f[i]);
  n[i+1] = e;
}
