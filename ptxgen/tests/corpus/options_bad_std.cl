// OPTIONS: -cl-std=CL3.0
// EXPECT: invalid-options
// ERROR: CL3.0
__kernel void k(__global int *p) { p[0] = 1; }
