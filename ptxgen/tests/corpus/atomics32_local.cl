// KERNELS: at32l
__kernel void at32l(__global int *out, __local int *cnt) {
  if (get_local_id(0) == 0) cnt[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&cnt[0], 1);
  atomic_max(&cnt[1], (int)get_local_id(0));
  atom_inc(&cnt[2]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) out[get_group_id(0)] = cnt[0];
}
