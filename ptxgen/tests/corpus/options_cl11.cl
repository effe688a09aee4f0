// OPTIONS: -cl-std=CL1.1 -cl-kernel-arg-info -cl-strict-aliasing
// KERNELS: eleven
__kernel void eleven(__global int *p) {
#if __OPENCL_C_VERSION__ != 110
#error wrong version
#endif
  p[get_global_id(0)] = 11;
}
