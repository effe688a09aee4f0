// KERNELS: acopy
__kernel void acopy(__global const float4 *in, __global float4 *out, __local float4 *buf) {
  event_t e = async_work_group_copy(buf, in + get_group_id(0) * get_local_size(0), get_local_size(0), 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = buf[get_local_size(0) - 1 - get_local_id(0)];
  prefetch(in, 16);
}
