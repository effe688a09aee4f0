// KERNELS: fences
__kernel void fences(__global int *g, __local int *l) {
  l[get_local_id(0)] = g[get_global_id(0)];
  mem_fence(CLK_LOCAL_MEM_FENCE);
  read_mem_fence(CLK_GLOBAL_MEM_FENCE);
  write_mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  g[get_global_id(0)] = l[get_local_size(0) - 1 - get_local_id(0)];
  barrier(CLK_GLOBAL_MEM_FENCE);
}
