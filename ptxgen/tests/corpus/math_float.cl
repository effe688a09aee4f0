// KERNELS: fmath
__kernel void fmath(__global float *v, __global float4 *w) {
  size_t i = get_global_id(0);
  float x = v[i];
  v[i] = sin(x) + cos(x) + tan(x) + exp(x) + exp2(x) + log(x) + log2(x) + pow(x, 1.5f) + sqrt(x) +
         rsqrt(x) + fma(x, x, x) + mad(x, 2.0f, 1.0f) + hypot(x, 2.0f) + atan2(x, 1.0f) + cbrt(x) +
         erf(x) + tgamma(x) + fmod(x, 3.0f) + remainder(x, 2.0f) + ceil(x) + round(x) + trunc(x);
  w[i] = sin(w[i]) + pow(w[i], (float4)(2.0f)) + fmax(w[i], 0.5f) + fmin(w[i], 0.25f);
}
