// KERNELS: sgemm_tiled
#define TS 16
__kernel void sgemm_tiled(uint n, __global const float *A, __global const float *B, __global float *C,
                          __local float *As, __local float *Bs) {
  uint r = get_local_id(1), c = get_local_id(0);
  uint gr = get_global_id(1), gc = get_global_id(0);
  float acc = 0.0f;
  for (uint t = 0; t < n / TS; t++) {
    As[r * TS + c] = A[gr * n + t * TS + c];
    Bs[r * TS + c] = B[(t * TS + r) * n + gc];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TS; k++) acc = mad(As[r * TS + k], Bs[k * TS + c], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[gr * n + gc] = acc;
}
