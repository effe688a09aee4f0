// KERNELS: at64l
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
__kernel void at64l(__global long *out, __local long *acc) {
  if (get_local_id(0) == 0) acc[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atom_add(&acc[0], (long)get_local_id(0));
  atom_cmpxchg(&acc[1], 0L, 1L);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) out[get_group_id(0)] = acc[0];
}
