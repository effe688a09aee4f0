// -cl-std=CL1.1 changes the language version, not the device's: __OPENCL_VERSION__ stays 300 (OpenCL 3.0).
// OPTIONS: -cl-std=CL1.1
// KERNELS: macros11
#if !defined(__OPENCL_VERSION__) || __OPENCL_VERSION__ != 300
#error __OPENCL_VERSION__ must be 300
#endif
#if __OPENCL_C_VERSION__ != 110
#error __OPENCL_C_VERSION__ must be 110 with -cl-std=CL1.1
#endif
__kernel void macros11(__global int *o) { o[0] = __OPENCL_VERSION__; }
