// OPTIONS: -cl-std=CL2.0
// EXPECT: invalid-options
// ERROR: CL2.0
__kernel void k(__global int *p) { p[0] = 1; }
