// OpenCL C 2.0 as SPIR-V carries it: generic pointers in helpers, C11 atomics, a local
// array at kernel scope, 64-bit atomics and printf.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
int sum3(int *p) { return p[0] + p[1] + p[2]; }

kernel void gen(global int *g, local int *l) {
  int priv[3] = {1, 2, 3};
  l[get_local_id(0)] = g[get_global_id(0)];
  work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  g[get_global_id(0)] = sum3(g) + sum3(l) + sum3(priv);
}

kernel void c11(global atomic_int *a, global int *out) {
  int old = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_device);
  atomic_store(a + 1, old);
  out[get_global_id(0)] = atomic_load(a + 1);
}

kernel void tiles(global float *out) {
  local float tile[64];
  tile[get_local_id(0)] = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - get_local_id(0)];
}

kernel void longatom(global long *p) { atom_add(p, 2L); atom_cmpxchg(p + 1, 0L, 1L); }

kernel void hello(global int *p) { printf("hello %d %f\n", p[0], 1.5f); }
