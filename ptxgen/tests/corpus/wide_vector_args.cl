// Vector arguments aligned above 16 bytes by value (piglit's vector-conversion: float8): passed
// as 16-byte chunks, every parameter aligned at most 16 (CUDA failed the launch otherwise); structs
// aligned above 16 likewise arrive 16-aligned and are copied into an aligned private copy.
// KERNELS: f8 d16 l3 mixed sarg32
__kernel void f8(__global int8 *out, float8 in) { *out = convert_int8_rtz(in); }
__kernel void d16(__global double16 *out, double16 in, int k) { *out = in * (double)k; }
__kernel void l3(__global long3 *out, long3 a, double3 b) { *out = a + convert_long3(b); }
__kernel void mixed(__global char16 *o, char16 a, long16 l, uchar8 u, short16 s) {
  *o = a + convert_char16(l) + (char)u.s1 + convert_char16(s);
}
typedef struct { float8 v; int k; } S8;
typedef struct __attribute__((aligned(64))) { int a; char b; } A64;
__kernel void sarg32(__global float *o, S8 s, char c, A64 t) { o[get_global_id(0)] = s.v.s7 + s.k + c + t.a + t.b; }
