// KERNELS: sarg
typedef struct { float a; int b; double c; } S;
__kernel void sarg(__global double *out, S s, int tail) {
  out[get_global_id(0)] = s.a + s.b + s.c + tail;
}
