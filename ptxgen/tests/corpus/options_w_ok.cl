// OPTIONS: -w
// KERNELS: wq
// LOG: empty
__kernel void wq(__global int *p) {
  p[0] = p[1] / 0;
}
