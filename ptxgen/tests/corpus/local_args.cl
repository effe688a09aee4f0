// KERNELS: two_locals
__kernel void two_locals(__global float *out, __local float *a, __local int *b, uint n) {
  uint l = get_local_id(0);
  a[l] = (float)l;
  b[l] = (int)(n - l);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[(l + 1) % get_local_size(0)] + (float)b[0];
}
