// KERNELS: nmath
__kernel void nmath(__global float *v) {
  size_t i = get_global_id(0);
  float x = v[i];
  v[i] = native_sin(x) + native_cos(x) + native_exp(x) + native_log(x) + native_sqrt(x) +
         native_recip(x) + native_divide(x, 3.0f) + native_powr(x, 2.0f) + half_sin(x) + half_exp(x);
}
