// EXPECT: fail
// ERROR: <source>:4:12: error: expected ';' at end of declaration
__kernel void broken(__global int *p) {
  int x = 1
  p[0] = x;
}
