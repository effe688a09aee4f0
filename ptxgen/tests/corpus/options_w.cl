// OPTIONS: -w -Wunused-variable
// EXPECT: invalid-options
__kernel void w(__global int *p) { int unused; p[0] = 1; }
