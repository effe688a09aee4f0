// OPTIONS: -cl-std=CL3.0
// KERNELS: k
// The C11 atomics of OpenCL C 3.0 in every form the device reports (bridge/atomics.cpp).
kernel void k(global atomic_int *a, local atomic_int *l, global int *o, global atomic_long *al,
              global atomic_float *af, global atomic_uint *au) {
  int x = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_work_group);
  x += atomic_fetch_add(a, 2);
  x += atomic_fetch_max_explicit(a, 3, memory_order_acq_rel, memory_scope_device);
  x += atomic_fetch_max_explicit(au, 3u, memory_order_acq_rel);
  atomic_store_explicit(l, 3, memory_order_release, memory_scope_work_group);
  x += atomic_load_explicit(l, memory_order_acquire, memory_scope_work_group);
  int e = 0;
  x += atomic_compare_exchange_strong_explicit(a, &e, 5, memory_order_seq_cst, memory_order_relaxed, memory_scope_device);
  x += atomic_compare_exchange_weak(a, &e, 6);
  x += atomic_exchange(l, 7);
  x += (int)atomic_fetch_or(al, 1L);
  atomic_store(af, 1.5f);
  x += (int)atomic_load(af);
  x += (int)atomic_exchange(af, 2.5f);
  atomic_init(a, 4);
  x += atomic_flag_test_and_set((global atomic_flag*)a);
  atomic_flag_clear_explicit((global atomic_flag*)a, memory_order_release, memory_scope_work_group);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_relaxed, memory_scope_device);
  o[0] = x + e;
}
