// EXPECT: fail
// ERROR: <source>:4:2: error: FLAG not defined
#ifndef FLAG
#error FLAG not defined
#endif
__kernel void nope(__global float *p) { p[0] = 1.0f; }
