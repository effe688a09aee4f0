// OPTIONS: -cl-denorms-are-zero -cl-single-precision-constant
// KERNELS: dz
__kernel void dz(__global float *a) {
  a[get_global_id(0)] = a[get_global_id(0)] * 1.5 + 0.25;
}
