// The predefined macros of OpenCL C 1.2 s6.10 (piglit's "check predefined preprocessor macros"):
// __OPENCL_VERSION__ is the device's version, which clang leaves to the implementation.
// KERNELS: macros
#if !defined(__FILE__) || !defined(__LINE__)
#error __FILE__ and __LINE__ must be defined
#endif
#if !defined(__OPENCL_VERSION__) || __OPENCL_VERSION__ != 300
#error __OPENCL_VERSION__ must be 300 (CL_DEVICE_VERSION "OpenCL 3.0")
#endif
#if !defined(__OPENCL_C_VERSION__) || __OPENCL_C_VERSION__ != 120
#error __OPENCL_C_VERSION__ must be 120
#endif
#if CL_VERSION_1_0 != 100 || CL_VERSION_1_1 != 110 || CL_VERSION_1_2 != 120
#error CL_VERSION_1_x
#endif
#if !defined(__ENDIAN_LITTLE__) || __ENDIAN_LITTLE__ != 1
#error __ENDIAN_LITTLE__ must be 1
#endif
#if !defined(__IMAGE_SUPPORT__) || __IMAGE_SUPPORT__ != 1
#error CL_DEVICE_IMAGE_SUPPORT is true: __IMAGE_SUPPORT__ must be 1
#endif
__kernel void macros(__global int *o) { o[0] = __OPENCL_VERSION__ + __LINE__; }
