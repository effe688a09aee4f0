// OPTIONS: -Werror
// EXPECT: fail
// ERROR: <source>:5:15: error: division by zero is undefined
__kernel void w(__global int *p) {
  p[0] = p[1] / 0;
}
