#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define TREE \
  s[l] = acc; barrier(CLK_LOCAL_MEM_FENCE); \
  for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) { if (l < k) s[l] += s[l + k]; barrier(CLK_LOCAL_MEM_FENCE); } \
  if (l == 0) out[get_group_id(0)] = s[0];

/* the issue's kernel */
__kernel void r0_plain(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0), gs = get_global_size(0);
  double acc = 0.0;
  for (size_t i = get_global_id(0); i < n; i += gs) acc += in[i];
  TREE
}
/* 32-bit indices */
__kernel void r1_uint(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0);
  uint gs = get_global_size(0), nn = n;
  double acc = 0.0;
  for (uint i = get_global_id(0); i < nn; i += gs) acc += in[i];
  TREE
}
/* unrolled by 4, one accumulator, remainder loop */
__kernel void r2_unroll4(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0), gs = get_global_size(0);
  double acc = 0.0;
  size_t i = get_global_id(0);
  for (; i + 3 * gs < n; i += 4 * gs) acc += in[i] + in[i + gs] + in[i + 2 * gs] + in[i + 3 * gs];
  for (; i < n; i += gs) acc += in[i];
  TREE
}
/* unrolled by 4 with the loads first (in order), one accumulator */
__kernel void r3_unroll4_seq(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0), gs = get_global_size(0);
  double acc = 0.0;
  size_t i = get_global_id(0);
  for (; i + 3 * gs < n; i += 4 * gs) {
    double a = in[i], b = in[i + gs], c = in[i + 2 * gs], d = in[i + 3 * gs];
    acc += a; acc += b; acc += c; acc += d;
  }
  for (; i < n; i += gs) acc += in[i];
  TREE
}
/* the plain loop with a pragma */
__kernel void r4_pragma(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0), gs = get_global_size(0);
  double acc = 0.0;
  #pragma unroll 4
  for (size_t i = get_global_id(0); i < n; i += gs) acc += in[i];
  TREE
}
/* uint, unrolled by 8 */
__kernel void r5_unroll8(__global const double *in, __global double *out, __local double *s, const ulong n) {
  size_t l = get_local_id(0), gs = get_global_size(0);
  double acc = 0.0;
  size_t i = get_global_id(0);
  for (; i + 7 * gs < n; i += 8 * gs) {
    double a = in[i], b = in[i + gs], c = in[i + 2 * gs], d = in[i + 3 * gs];
    double e = in[i + 4 * gs], f = in[i + 5 * gs], g = in[i + 6 * gs], h = in[i + 7 * gs];
    acc += a; acc += b; acc += c; acc += d; acc += e; acc += f; acc += g; acc += h;
  }
  for (; i < n; i += gs) acc += in[i];
  TREE
}
