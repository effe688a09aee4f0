// OPTIONS: -cl-std=CL1.0
// KERNELS: old
__kernel void old(__global int *p) {
#if __OPENCL_C_VERSION__ != 100
#error wrong version
#endif
  p[get_global_id(0)] = __OPENCL_C_VERSION__;
}
