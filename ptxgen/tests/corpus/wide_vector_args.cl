// Vector arguments aligned above 16 bytes by value (piglit's vector-conversion: float8): passed
// as 16-byte chunks, every parameter aligned at most 16 (CUDA failed the launch otherwise).
// KERNELS: f8 d16 l3 mixed
__kernel void f8(__global int8 *out, float8 in) { *out = convert_int8_rtz(in); }
__kernel void d16(__global double16 *out, double16 in, int k) { *out = in * (double)k; }
__kernel void l3(__global long3 *out, long3 a, double3 b) { *out = a + convert_long3(b); }
__kernel void mixed(__global char16 *o, char16 a, long16 l, uchar8 u, short16 s) {
  *o = a + convert_char16(l) + (char)u.s1 + convert_char16(s);
}
