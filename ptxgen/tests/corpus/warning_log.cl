// KERNELS: warned
// LOG: <source>:5:15: warning: division by zero is undefined
__kernel void warned(__global int *p) {
  // the warning goes to the build log, the build succeeds
  p[0] = p[1] / 0;
}
