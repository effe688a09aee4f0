// OPTIONS: -cl-std=CL3.0
// EXPECT: fail
// ERROR: read_write
// No __opencl_c_read_write_images.
__kernel void k(read_write image2d_t img) { write_imagef(img, (int2)(0), read_imagef(img, (int2)(0))); }
