// KERNELS: dvec
__kernel void dvec(__global double2 *a, __global double4 *b, double2 s) {
  size_t i = get_global_id(0);
  a[i] = a[i] * s + (double2)(dot(b[i], b[i]), length(b[i].xy));
  b[i] = normalize(b[i] + (double4)(1.0));
}
