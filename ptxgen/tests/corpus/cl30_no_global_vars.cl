// OPTIONS: -cl-std=CL3.0
// EXPECT: fail
// ERROR: error
// No __opencl_c_program_scope_global_variables: a program-scope __global variable is an error.
__global int counter = 0;
__kernel void k(__global int *p) { p[0] = counter; }
