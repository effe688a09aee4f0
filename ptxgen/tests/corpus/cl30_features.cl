// OPTIONS: -cl-std=CL3.0 -cl-uniform-work-group-size
// KERNELS: k
// Exactly the feature macros of ptxgen::OPENCL_C_FEATURES, and OpenCL 3.0's versions.
#if __OPENCL_C_VERSION__ != 300 || __OPENCL_VERSION__ != 300 || !defined(__IMAGE_SUPPORT__)
#error version
#endif
#if !defined(__opencl_c_images) || !defined(__opencl_c_3d_image_writes) || !defined(__opencl_c_fp64) \
    || !defined(__opencl_c_int64) || !defined(__opencl_c_atomic_order_acq_rel) \
    || !defined(__opencl_c_atomic_order_seq_cst) || !defined(__opencl_c_atomic_scope_device) \
    || !defined(__opencl_c_fp16) || !defined(cl_khr_fp16) || !defined(__opencl_c_subgroups) \
    || !defined(cl_khr_subgroups)
#error a reported feature is missing
#endif
#if defined(__opencl_c_generic_address_space) || defined(__opencl_c_pipes) || defined(__opencl_c_device_enqueue) \
    || defined(__opencl_c_program_scope_global_variables) || defined(__opencl_c_read_write_images) \
    || defined(__opencl_c_work_group_collective_functions) \
    || defined(__opencl_c_atomic_scope_all_devices)
#error an absent feature is defined
#endif
__kernel void k(__global double *d, __global long *l, write_only image3d_t img) {
  d[0] = 1.0;
  l[0] = 1L << 40;
  write_imagef(img, (int4)(0), (float4)(1.0f));
}
