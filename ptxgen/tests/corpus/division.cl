// Single-precision division by the build options (bridge.cpp, lowerRelaxedDivisions): the
// program's divisions are div.full (2 ulp), div.rn with -cl-fp32-correctly-rounded-divide-sqrt,
// div.approx with -cl-fast-relaxed-math; libclc's own (atan2pi's) stay div.rn; doubles are div.rn.
// KERNELS: scalar vector libclc_atan2pi dbl
__kernel void scalar(__global float *a, __global const float *b) {
  int i = get_global_id(0);
  a[i] = a[i] / b[i];
}
__kernel void vector(__global float4 *a, __global const float4 *b) {
  int i = get_global_id(0);
  a[i] = a[i] / b[i];
}
__kernel void libclc_atan2pi(__global float *a) {
  int i = get_global_id(0);
  a[i] = atan2pi(a[i], a[i + 1]);
}
__kernel void dbl(__global double *a, __global const double *b) {
  int i = get_global_id(0);
  a[i] = a[i] / b[i];
}
