// OPTIONS: -D N=4 -DFLAG -D SCALE=2.5f
// KERNELS: defined
#ifndef FLAG
#error FLAG not defined
#endif
__kernel void defined(__global float *p) {
  for (int k = 0; k < N; k++) p[get_global_id(0) * N + k] *= SCALE;
}
