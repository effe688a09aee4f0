// EXPECT: fail
// ERROR: <source>:5:5: error:
__kernel void ty(__global int *p, __global float *f) {
  float4 v = (float4)(1.0f);
  f = v;
}
