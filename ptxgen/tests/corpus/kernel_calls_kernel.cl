// KERNELS: inner outer
__kernel void inner(__global int *p, int v) { p[get_global_id(0)] = v; }
__kernel void outer(__global int *p) { inner(p, 3); p[0] += 1; }
