// KERNELS: wi
__kernel void wi(__global uint *o) {
  size_t g = get_global_id(0) + get_global_id(1) * get_global_size(0) + get_global_id(2) * get_global_size(0) * get_global_size(1);
  o[g] = get_local_id(0) + get_local_size(1) + get_group_id(2) + get_num_groups(0) + get_work_dim() + get_global_size(2);
}
