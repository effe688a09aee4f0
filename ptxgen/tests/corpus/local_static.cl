// KERNELS: transpose16
#define T 16
__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void transpose16(__global const float *in, __global float *out, uint w, uint h) {
  __local float tile[T][T + 1];
  uint x = get_global_id(0), y = get_global_id(1);
  if (x < w && y < h) tile[get_local_id(1)][get_local_id(0)] = in[y * w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = get_group_id(1) * T + get_local_id(0), oy = get_group_id(0) * T + get_local_id(1);
  if (ox < h && oy < w) out[oy * h + ox] = tile[get_local_id(0)][get_local_id(1)];
}
