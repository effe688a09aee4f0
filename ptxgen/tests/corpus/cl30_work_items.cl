// OpenCL C 2.0/3.0 work-item functions and barriers libclc lacks on nvptx (ptxgen defines them:
// abi.cpp's defineLinearIds, builtins.cpp's work_group_barrier).
// OPTIONS: -cl-std=CL3.0
// KERNELS: linear
__kernel void linear(__global ulong *out, __local int *tmp) {
  tmp[get_local_linear_id()] = (int)get_enqueued_local_size(0);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_linear_id()] = tmp[0] + get_local_linear_id();
  work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device);
  out[0] = 1;
}
