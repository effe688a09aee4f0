// EXPECT: fail
// ERROR: <source>:4:21: error: casting
__kernel void priv(__global int *p) {
  __global int *q = (__local int *)p;
  q[0] = 1;
}
