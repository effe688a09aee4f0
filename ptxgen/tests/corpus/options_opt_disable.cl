// OPTIONS: -cl-opt-disable
// KERNELS: noopt
float helper(float x) { return x * x + sin(x); }
__kernel void noopt(__global float *a, __local float *l) {
  size_t i = get_global_id(0);
  l[get_local_id(0)] = helper(a[i]);
  barrier(CLK_LOCAL_MEM_FENCE);
  a[i] = l[0] + get_global_offset(0);
}
