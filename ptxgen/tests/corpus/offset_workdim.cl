// KERNELS: offset_probe
// Writes get_global_id (which includes the offset), the offset and work_dim.
__kernel void offset_probe(__global ulong *ids, __global ulong *offs, __global uint *dims) {
  size_t l = get_global_id(0) - get_global_offset(0);
  ids[l] = get_global_id(0);
  offs[l] = get_global_offset(0) + get_global_offset(1) * 1000 + get_global_offset(7);
  dims[l] = get_work_dim();
  if (l == 0) printf("offset_probe: offset %lu work_dim %u\n", (ulong)get_global_offset(0), get_work_dim());
}
