// KERNELS: k wide
// libclc's nvptx float fmod/remainder/remquo/ldexp/rootn/erfc/exp/exp2/exp10 flush subnormals:
// computed in double (exponentials only below their subnormal threshold when scalar) and rounded
// once. `wide`: float8/float16 arguments, converted lane by lane (LLVM 19 made one extending
// vector load of them, which ptxas rejects).
__kernel void k(__global float *f, __global float4 *v, __global int *n) {
  size_t i = get_global_id(0);
  int q;
  f[i] = exp(f[i]) + exp2(f[i+1]) + exp10(f[i+2]) + fmod(f[i+3], f[i+4]) + remainder(f[i+5], f[i+6]) + ldexp(f[i+7], n[i])
       + remquo(f[i+8], f[i+9], &q) + rootn(f[i+10], n[i+1]) + erfc(f[i+11]);
  v[i] = exp(v[i]) + fmod(v[i+1], v[i+2]) + ldexp(v[i+3], n[i]);
  n[i+2] = q;
}
__kernel void wide(__global float8 *a, __global float8 *b, __global float16 *c, __global int8 *n, __global float16 *d) {
  size_t i = get_global_id(0);
  a[i] = fmod(a[i], b[i]) + remainder(a[i+1], b[i+1]) + ldexp(a[i+2], n[i]) + rootn(a[i+3], n[i+1]);
  c[i] = fmod(c[i], d[i]) + erfc(d[i+1]);
}
