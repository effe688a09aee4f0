// KERNELS: mixed
__kernel void mixed(char c, __local float4 *l4, __global int *g, __local uchar *lc, double d, __local long *ll) {
  uint i = get_local_id(0);
  l4[i] = (float4)(c);
  lc[i] = (uchar)i;
  ll[i] = (long)d;
  barrier(CLK_LOCAL_MEM_FENCE);
  g[get_global_id(0)] = (int)l4[0].x + lc[0] + (int)ll[0];
}
