// KERNELS: quals
__kernel void quals(__global const int *restrict a, __global volatile int *v, __constant float *c,
                    __global const volatile uint *cv, const int k) {
  v[0] = a[0] + (int)c[0] + cv[0] + k;
}
