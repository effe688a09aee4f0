// KERNELS: to_local to_global
// async_work_group_copy, async_work_group_strided_copy and prefetch of 3-component vectors
// (libclc has every other gentype; the CTS's basic async_copy_* and prefetch tests use them),
// and get_local_size(d) for d out of range, which is 1 (libclc answers 0).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void to_local(const __global float3 *src, __global float3 *dst, __local float3 *lb, int n) {
  event_t e = async_work_group_copy(lb, src + get_group_id(0) * n, (size_t)n, 0);
  wait_group_events(1, &e);
  e = async_work_group_strided_copy(dst + get_group_id(0), lb, (size_t)n, 3, 0);
  wait_group_events(1, &e);
  prefetch(src, 4);
  dst[0].x = get_local_size(3) + get_local_size(get_work_dim() + 7);
}
__kernel void to_global(const __global char3 *src, __global char3 *dst, __local char3 *lb,
                        const __global double3 *dsrc, __global double3 *ddst, __local double3 *dlb,
                        int n) {
  event_t e = async_work_group_strided_copy(lb, src, (size_t)n, 2, 0);
  wait_group_events(1, &e);
  e = async_work_group_copy(dst, lb, (size_t)n, 0);
  e = async_work_group_copy(dlb, dsrc, (size_t)n, e);
  e = async_work_group_strided_copy(ddst, dlb, (size_t)n, 5, e);
  wait_group_events(1, &e);
  prefetch(src, 4);
  prefetch(dsrc, 2);
}
