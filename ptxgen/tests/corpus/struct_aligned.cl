// KERNELS: aligned16
typedef struct __attribute__((aligned(16))) { char c; short s; } A;
__kernel void aligned16(__global int *out, uchar pad, A a, uchar pad2) {
  out[get_global_id(0)] = a.c + a.s + pad + pad2;
}
