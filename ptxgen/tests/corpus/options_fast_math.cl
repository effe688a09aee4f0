// OPTIONS: -cl-fast-relaxed-math -cl-mad-enable -cl-no-signed-zeros -cl-unsafe-math-optimizations -cl-finite-math-only
// KERNELS: fastm
__kernel void fastm(__global float *a, __global const float *b) {
  size_t i = get_global_id(0);
  a[i] = a[i] * b[i] + 1.0f + sqrt(b[i]) / a[i];
}
