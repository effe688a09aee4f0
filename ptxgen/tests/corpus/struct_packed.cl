// KERNELS: packed
typedef struct __attribute__((packed)) { char c; int i; } P;
__kernel void packed(__global int *out, char before, P p, short after) {
  out[get_global_id(0)] = p.c + p.i + before + after;
}
