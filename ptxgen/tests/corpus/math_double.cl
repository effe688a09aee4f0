// KERNELS: dmath2
__kernel void dmath2(__global double *v) {
  size_t i = get_global_id(0);
  double x = v[i];
  v[i] = tan(x) + atan(x) + asin(x * 0.1) + acos(x * 0.1) + sinh(x) + cosh(x) + tanh(x) + exp2(x) +
         log10(x) + cbrt(x) + hypot(x, 1.0) + fmod(x, 2.0) + erf(x) + lgamma(x) + ldexp(x, 3) + rsqrt(x);
}
