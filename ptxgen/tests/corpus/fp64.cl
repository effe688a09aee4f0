// KERNELS: daxpy dmath
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy(double a, __global const double *x, __global double *y) {
  size_t i = get_global_id(0);
  y[i] = fma(a, x[i], y[i]);
}
__kernel void dmath(__global double *v) {
  size_t i = get_global_id(0);
  double x = v[i];
  v[i] = sqrt(x) + exp(x) + log(x + 1.0) + sin(x) * cos(x) + pow(x, 2.5) + floor(x) + fabs(-x);
}
