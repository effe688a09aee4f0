// KERNELS: uni
typedef union { float f; uint u; uchar b[4]; } U;
__kernel void uni(__global uint *out, U u, U v) {
  out[get_global_id(0)] = u.u + v.b[3];
}
