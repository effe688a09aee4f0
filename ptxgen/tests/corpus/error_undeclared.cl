// EXPECT: fail
// ERROR: <source>:4:10: error: use of undeclared identifier 'missing'
__kernel void und(__global int *p) {
  p[0] = missing + 1;
}
