// C99 inline definitions whose calls are not inlined (PyOpenCL's headers are written this way):
// the bodies must still be emitted, with and without optimisation.
// KERNELS: c99_inline
__attribute__((noinline)) inline float twice(float x) { return 2.0f * x; }
inline float poly(float x) {
  float r = 0.0f;
  for (int k = 0; k < 8; k++) r = r * x + (float)k;
  return r;
}
__kernel void c99_inline(__global float *a) {
  size_t i = get_global_id(0);
  a[i] = twice(a[i]) + poly(a[i]);
}
