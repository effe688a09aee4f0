// KERNELS: helper_ids
__attribute__((noinline)) size_t gid(uint d) { return get_global_id(d) + get_global_offset(d) * 0 + get_work_dim() * 0; }
__attribute__((noinline)) void store(__global ulong *p, __local ulong *l) {
  l[get_local_id(0)] = gid(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  p[gid(0) - get_global_offset(0)] = l[get_local_id(0)];
}
__kernel void helper_ids(__global ulong *p, __local ulong *l) { store(p, l); }
