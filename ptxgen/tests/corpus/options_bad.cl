// OPTIONS: -O3
// EXPECT: invalid-options
// ERROR: invalid build option '-O3'
__kernel void k(__global int *p) { p[0] = 1; }
