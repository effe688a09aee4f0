// KERNELS: math1 math2 math3 common geometric relational conversions_to conversions_from memory images
// cl_khr_fp16: every half built-in family, scalar and vector (bridge/half.cpp); the corpus check
// fails on any call left undefined.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define V(T) T##2 a2 = (T##2)(x, y); T##3 a3 = (T##3)(x, y, x); T##4 a4 = (T##4)(x); T##8 a8 = (T##8)(y); T##16 a16 = (T##16)(x);
#define U(f) r += f(x); r += f(a2).y; r += f(a3).z; r += f(a4).w; r += f(a8).s7; r += f(a16).sf;
#define B2(f) r += f(x, y); r += f(a2, a2).y; r += f(a3, a3).z; r += f(a4, a4).w; r += f(a8, a8).s7; r += f(a16, a16).sf;

kernel void math1(global half *o, half x, half y) {
  V(half)
  half r = 0;
  U(acos) U(acosh) U(acospi) U(asin) U(asinh) U(asinpi) U(atan) U(atanh) U(atanpi) U(cbrt) U(ceil) U(cos)
  U(cosh) U(cospi) U(erfc) U(erf) U(exp) U(exp2) U(exp10) U(expm1) U(fabs) U(floor) U(lgamma) U(log) U(log2)
  U(log10) U(log1p) U(logb) U(rint) U(round) U(rsqrt) U(sin) U(sinh) U(sinpi) U(sqrt) U(tan) U(tanh) U(tanpi)
  U(tgamma) U(trunc) U(degrees) U(radians) U(sign)
  o[0] = r;
}

kernel void math2(global half *o, half x, half y) {
  V(half)
  half r = 0;
  B2(atan2) B2(atan2pi) B2(copysign) B2(fdim) B2(fmax) B2(fmin) B2(fmod) B2(hypot) B2(maxmag) B2(minmag)
  B2(nextafter) B2(pow) B2(powr) B2(remainder) B2(max) B2(min) B2(step)
  r += fma(x, y, x) + mad(x, y, x) + fma(a4, a4, a4).x + mad(a16, a16, a16).s3;
  r += fmax(a4, y).x + fmin(a8, y).s1 + max(a2, y).x + min(a3, y).z + step(x, a4).w;
  r += clamp(x, y, x) + clamp(a4, a4, a4).y + clamp(a8, x, y).s2;
  r += mix(x, y, x) + mix(a4, a4, a4).z + mix(a16, a16, y).s9;
  r += smoothstep(x, y, x) + smoothstep(a2, a2, a2).x + smoothstep(x, y, a3).y;
  o[0] = r;
}

kernel void math3(global half *o, global int *io, local half *lh, half x, half y) {
  V(half)
  half r = 0;
  int e;
  int2 e2;
  int4 e4;
  half ip;
  half4 ip4;
  r += frexp(x, &e) + frexp(a2, &e2).y + frexp(a4, (global int4 *)io).x;
  r += modf(x, &ip) + ip + modf(a4, &ip4).w + ip4.x + modf(x, lh) + modf(a4, (global half4 *)o).y;
  r += fract(x, &ip) + fract(a4, &ip4).z + fract(x, (global half *)o);
  r += sincos(x, &ip) + sincos(a4, &ip4).y + sincos(a2, (local half2 *)lh).x;
  r += lgamma_r(x, &e) + lgamma_r(a4, &e4).x;
  r += remquo(x, y, &e) + remquo(a4, a4, &e4).z;
  r += ldexp(x, 3) + ldexp(a4, 2).x + ldexp(a4, e4).y;
  r += pown(x, 3) + pown(a4, e4).w + rootn(x, 2) + rootn(a2, e2).x;
  io[0] = ilogb(x) + ilogb(a4).x + e + e2.y + e4.w;
  r += nan((ushort)3) + nan((ushort4)(1)).y;
  o[1] = r;
}

kernel void common(global half *o, half x, half y) {
  V(half)
  o[0] = bitselect(x, y, x) + bitselect(a4, a4, a4).x + select(x, y, (short)1) + select(x, y, (ushort)0)
         + select(a4, a4, (short4)(-1)).y + select(a8, a8, (ushort8)(0x8000)).s2;
}

kernel void geometric(global half *o, half x, half y) {
  V(half)
  o[0] = dot(x, y) + dot(a2, a2) + dot(a3, a3) + dot(a4, a4) + length(x) + length(a2) + length(a3) + length(a4)
         + distance(x, y) + distance(a4, a4) + normalize(x) + normalize(a3).y + normalize(a4).w + cross(a3, a3).x
         + cross(a4, a4).y;
}

kernel void relational(global int *o, global short16 *s, half x, half y) {
  V(half)
  o[0] = isequal(x, y) + isnotequal(x, y) + isgreater(x, y) + isgreaterequal(x, y) + isless(x, y)
         + islessequal(x, y) + islessgreater(x, y) + isfinite(x) + isinf(x) + isnan(x) + isnormal(x)
         + isordered(x, y) + isunordered(x, y) + signbit(x);
  s[0] = isequal(a16, a16) + isnan(a16) + signbit(a16) + isless(a16, a16) + isunordered(a16, a16);
  s[1].lo = isnotequal(a8, a8) + isgreater(a8, a8) + isinf(a8) + isfinite(a8) + isnormal(a8);
  s[2].s0123 = islessequal(a4, a4) + isgreaterequal(a4, a4) + islessgreater(a4, a4) + isordered(a4, a4);
  s[3].s012 = isequal(a3, a3);
  s[4].s01 = isequal(a2, a2);
}

kernel void conversions_to(global half *o, global half16 *o16, char c, uchar uc, short s, ushort us, int i,
                           uint ui, long l, ulong ul, float f, double d, half h, float4 f4, int16 i16) {
  o[0] = convert_half(c) + convert_half_rte(uc) + convert_half_rtz(s) + convert_half_rtp(us) + convert_half_rtn(i)
         + convert_half(ui) + convert_half_rtz(l) + convert_half_rtp(ul) + convert_half_rtn(f) + convert_half_rtz(d)
         + convert_half(h) + convert_half_rtp(h);
  o[1] = convert_half4_rtz(f4).y + convert_half4(f4).z;
  o16[0] = convert_half16_rtn(i16) + convert_half16(convert_double16(i16));
}

kernel void conversions_from(global int *o, global float *f, global double *d, global uchar8 *u8,
                             global long *l, half h, half8 h8) {
  o[0] = convert_int(h) + convert_int_sat(h) + convert_int_rtz(h) + convert_int_sat_rtp(h) + convert_uint_rtn(h)
         + convert_short_sat(h) + convert_char_sat_rte(h) + convert_ushort(h);
  l[0] = convert_long_sat(h) + convert_ulong_rtz(h);
  u8[0] = convert_uchar8_sat(h8);
  f[0] = convert_float(h) + convert_float_rtz(h) + convert_float8(h8).s3;
  d[0] = convert_double(h) + convert_double8_rtp(h8).s5;
}

kernel void memory(global half *g, local half *lh, global half16 *g16) {
  half2 v2 = vload2(1, g);
  half3 v3 = vload3(1, g);
  half4 v4 = vload4(2, g);
  half8 v8 = vload8(0, g);
  half16 v16 = vload16(0, g);
  vstore2(v2, 3, g);
  vstore3(v3, 4, g);
  vstore4(v4, 5, g);
  vstore8(v8, 6, g);
  vstore16(v16, 7, g);
  vstore4(v4, 0, lh);
  g16[0] = shuffle(v4, (ushort16)(3)) + shuffle2(v8, v8, (ushort16)(15)) + v16;
  g16[1].lo = shuffle(v2, (ushort8)(1));
  event_t e = async_work_group_copy(lh, g, 32, 0);
  e = async_work_group_strided_copy((local half4 *)lh, (global half4 *)g, 4, 2, e);
  e = async_work_group_copy(g16, (local half16 *)lh, 2, e);
  wait_group_events(1, &e);
  prefetch(g, 16);
  prefetch(g16, 1);
  g[1] = vload_half(0, g) + lh[1];
  vstore_half_rtz(1.5f, 2, g);
}

kernel void images(read_only image2d_t src, write_only image2d_t dst, read_only image3d_t src3,
                   write_only image1d_t dst1, sampler_t s, global half *o) {
  int2 c = (int2)(get_global_id(0), 0);
  half4 p = read_imageh(src, s, c) + read_imageh(src, c) + read_imageh(src, s, (float2)(0.5f));
  p += read_imageh(src3, s, (int4)(0)) + read_imageh(src3, s, (float4)(0.5f));
  write_imageh(dst, c, p);
  write_imageh(dst1, 0, p);
  o[0] = p.x;
}
