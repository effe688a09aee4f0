// Float exponentials, logarithms, powers, sine and cosine for cudacl, in place of libclc's: compiled once per process by
// ptxgen's own clang and linked into the programs that call them (src/mathlib.rs,
// bridge/builtin_library.cpp), before libclc, as images.cl and subgroups.cl are.
//
// Why: libclc's float exp and log are generic code, about 35 and 30 instructions on their common
// path, each with a correctly rounded division (div.rn.f32, a subroutine on NVIDIA GPUs); NVIDIA's
// OpenCL computes them in about a third of that (issue 23: a kernel that spends its time in exp or
// log ran at a fraction of NVIDIA's speed). These use the GPU's 2^x unit for the exponentials and
// a polynomial for the logarithms, no division, within OpenCL's bounds (exp, exp2, exp10, log,
// log2, log10: 3 ulp):
//  - exp2(x) is ex2.approx.f32 (2 ulp over the whole range, subnormal results included; CUDA's
//    exp2f is the same instruction).
//  - exp(x) and exp10(x) are 2^(x * log2(b)): an integer j near the product scales exactly, the
//    rest f goes through ex2.approx. At most 2.9 ulp: 0.87 from the reduction (every third float
//    checked on the host with a correctly rounded 2^f), plus the instruction's 2 (the CTS's exp
//    and exp10 over every float measured 2.07 and 2.09 with the reduction of 2026-11-28).
//  - log(x), log2(x), log10(x): x = 2^e * m with m in [2/3, 4/3), log1p(m - 1) as f + f^2 p(f)
//    with p of degree 8 (minimax for the relative error on [-1/3, 1/3], 2^-26.5), the sum with
//    e * log(2) in two floats. Every operation is an IEEE float operation, so the host checked
//    every third float exactly as the GPU computes it: at most 0.96, 1.23 and 1.27 ulp.
// exp and exp10 give subnormal results themselves; exp2's (below -125.5) are not taken from here:
// the IR rewrites (bridge/libclc_fixes.cpp, fixFloatSubnormalCalls) compute those lanes in double
// first. Subnormal arguments of the logarithms are scaled by 2^23 here.

float __ml_ex2(float x) __asm("llvm.nvvm.ex2.approx.f");

// 2^(x * (lh + ll)), computed as NVIDIA's OpenCL computes exp: j the product rounded to an
// integer, kept in [-151, 128]; f = x * (lh + ll) - j by two fmas (|f| <= 0.5 wherever the result
// is not 0 or inf); 2^f from ex2.approx; then the scaling by 2^j in two exact steps of normal
// powers of two, so that a subnormal result is rounded once, by the last multiplication. At most
// 0.87 ulp from the reduction and the scaling (every third float checked on the host with a
// correctly rounded 2^f, subnormal results included). No branch and no special case: an
// infinite or NaN x carries through f, and beyond the clamp 2^f itself overflows or vanishes.
static inline float __ml_exp_base(float x, float lh, float ll) {
    float j = fmin(fmax(__builtin_rintf(x * lh), -151.0f), 128.0f);
    float f = __builtin_fmaf(x, lh, -j);
    f = __builtin_fmaf(x, ll, f);
    int ji = (int)j, j1 = ji >> 1, j2 = ji - j1;
    return (__ml_ex2(f) * as_float((j1 + 127) << 23)) * as_float((j2 + 127) << 23);
}

float __attribute__((overloadable)) exp(float x) {
    return __ml_exp_base(x, 0x1.715476p+0f, 0x1.4ae0c0p-26f);
}

float __attribute__((overloadable)) exp10(float x) {
    return __ml_exp_base(x, 0x1.a934f0p+1f, 0x1.2f346ep-24f);
}

float __attribute__((overloadable)) exp2(float x) {
    return __ml_ex2(x);
}

// log_b(x) = e * ch + e * cl + log1p(f) * (dh + dl), dh = 1 and dl = 0 for the natural logarithm
static inline float __ml_log_base(float x, float ch, float cl, float dh, float dl, int natural) {
    float sub = x < 0x1p-126f ? 0x1p23f : 1.0f;
    float xs = x * sub;
    int ix = as_int(xs) - 0x3f2aaaab;
    int ei = ix >> 23;
    float m = as_float(as_int(xs) - (ei << 23));
    float f = m - 1.0f;
    float p = -0x1.099f98p-3f;
    p = __builtin_fmaf(p, f, 0x1.1f3c2cp-3f);
    p = __builtin_fmaf(p, f, -0x1.f22ee8p-4f);
    p = __builtin_fmaf(p, f, 0x1.1eaa60p-3f);
    p = __builtin_fmaf(p, f, -0x1.55a8f0p-3f);
    p = __builtin_fmaf(p, f, 0x1.99d30ep-3f);
    p = __builtin_fmaf(p, f, -0x1.fffe7ap-3f);
    p = __builtin_fmaf(p, f, 0x1.555500p-2f);
    p = __builtin_fmaf(p, f, -0x1.000000p-1f);
    float lo = (f * f) * p;
    float t = f, s = lo;
    if (!natural) {
        t = f * dh;
        s = __builtin_fmaf(f, dh, -t) + __builtin_fmaf(f, dl, lo * dh);
    }
    float e = (float)ei - (sub > 1.0f ? 23.0f : 0.0f);
    float eh = e * ch, el = e * cl;
    float w = eh + t;
    float werr = (eh - w) + t; // exact: |eh| >= |t| where e != 0, eh = 0 otherwise
    float r = w + (werr + (s + el));
    // 0 -> -inf, negative (-inf too) -> NaN, +inf and NaN as they are
    r = x == 0.0f ? -INFINITY : r;
    r = x < 0.0f ? NAN : r;
    return x == INFINITY || isnan(x) ? x : r;
}

float __attribute__((overloadable)) log(float x) {
    return __ml_log_base(x, 0x1.62e400p-1f, 0x1.7f7d1cp-20f, 1.0f, 0.0f, 1);
}

float __attribute__((overloadable)) log2(float x) {
    return __ml_log_base(x, 1.0f, 0.0f, 0x1.715476p+0f, 0x1.4ae0c0p-26f, 0);
}

float __attribute__((overloadable)) log10(float x) {
    return __ml_log_base(x, 0x1.344000p-2f, 0x1.3509f8p-18f, 0x1.bcb7b2p-2f, -0x1.5b235ep-27f, 0);
}

// pow(x, y) and powr(x, y) (16 ulp allowed) where x is a positive normal float, y finite and
// |y log2 x| < 64 (results in (2^-64, 2^64)): 2^(y * log2(x)), with log2(x) in two floats
// (log1p(f) = f - f^2/2 + f^3 q(f), the first two terms exact in two floats, q of degree 8:
// 2^-28.3 relative) and the product with y in two floats, then exp's reduction and ex2.approx.
// The error grows with |y log2 x|: on the host (2*10^8 random pairs, a correctly rounded 2^f) at
// most 2.3 ulp below 32, 6.2 below 64 (8.6 below 120), plus ex2.approx's 2; the CTS's pow and
// powr over its full set measured 12.9 and 11.9 ulp with the bound at 126. Everything else (zero,
// negative, subnormal, infinite or NaN arguments, larger and smaller results) goes to libclc's own
// __clc_pow / __clc_powr, out of line, which handle the special cases of section 7.5.1 as before.
float __attribute__((overloadable)) __clc_pow(float, float);
float __attribute__((overloadable)) __clc_powr(float, float);
__attribute__((noinline)) static float __ml_pow_other(float x, float y, int r) {
    return r ? __clc_powr(x, y) : __clc_pow(x, y);
}

static inline float __ml_pow(float x, float y, int r) {
    if (!(x >= 0x1p-126f && x < INFINITY && fabs(y) < INFINITY)) return __ml_pow_other(x, y, r);
    int ix = as_int(x) - 0x3f2aaaab;
    int ei = ix >> 23;
    float f = as_float(as_int(x) - (ei << 23)) - 1.0f;
    float q = 0x1.ecac14p-4f;
    q = __builtin_fmaf(q, f, -0x1.077b44p-3f);
    q = __builtin_fmaf(q, f, 0x1.b84b72p-4f);
    q = __builtin_fmaf(q, f, -0x1.f35ee2p-4f);
    q = __builtin_fmaf(q, f, 0x1.24f680p-3f);
    q = __builtin_fmaf(q, f, -0x1.559a5ep-3f);
    q = __builtin_fmaf(q, f, 0x1.999770p-3f);
    q = __builtin_fmaf(q, f, -0x1.ffff08p-3f);
    q = __builtin_fmaf(q, f, 0x1.555558p-2f);
    // log1p(f) = hi + lo: f - f^2/2 exactly in two floats, then f^3 q
    float hf = f * 0.5f;
    float h2 = f * hf, h2err = __builtin_fmaf(f, hf, -h2);
    float hi = f - h2, lo = ((f - hi) - h2 - h2err) + (f * f) * (f * q);
    // log2(x) = e + (hi + lo) * log2(e), in two floats
    float t = hi * 0x1.715476p+0f;
    float s = __builtin_fmaf(hi, 0x1.715476p+0f, -t) + __builtin_fmaf(hi, 0x1.4ae0c0p-26f, lo * 0x1.715476p+0f);
    float e = (float)ei;
    float w = e + t;
    float werr = (e - w) + t + s;
    float lh = w + werr, ll = (w - lh) + werr;
    // y * log2(x) in two floats, then 2^ of it as exp does
    float th = y * lh;
    if (!(fabs(th) < 64.0f)) return __ml_pow_other(x, y, r);
    float tl = __builtin_fmaf(y, lh, -th) + y * ll;
    float j = __builtin_rintf(th);
    int ji = (int)j, j1 = ji >> 1, j2 = ji - j1;
    return (__ml_ex2((th - j) + tl) * as_float((j1 + 127) << 23)) * as_float((j2 + 127) << 23);
}

float __attribute__((overloadable)) pow(float x, float y) {
    return __ml_pow(x, y, 0);
}

float __attribute__((overloadable)) powr(float x, float y) {
    return __ml_pow(x, y, 1);
}

// sin and cos (4 ulp allowed) as NVIDIA's OpenCL computes them: for |x| <= 105615, q = x * 2/pi
// rounded, r = x - q * pi/2 with pi/2 in three floats (exact enough while q < 2^17), then
// minimax polynomials on [-pi/4, pi/4] (sin: r + r^3 S(r^2), cos: 1 - r^2/2 + r^4 C(r^2), fitted
// here for the relative error: 2^-28 and 2^-33) and the quadrant's sign and swap. At most 1.53
// ulp (every third float in range checked on the host, every operation an IEEE float one).
// Beyond, and for inf and NaN, the double sin or cos (libclc's, whose reduction is exact for any
// argument) rounded to float: a call, kept out of line so that its registers do not weigh on the
// kernel's common path.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__attribute__((noinline)) static float __ml_sincos_big(float x, int cosine) {
    return cosine ? (float)cos((double)x) : (float)sin((double)x);
}

static inline float __ml_sincos(float x, int cosine) {
    if (!(fabs(x) <= 105615.0f)) return __ml_sincos_big(x, cosine);
    float q = __builtin_rintf(x * 0x1.45f306p-1f);
    float r = __builtin_fmaf(q, -0x1.921fb6p+0f, x);
    r = __builtin_fmaf(q, 0x1.777a5cp-25f, r);
    r = __builtin_fmaf(q, 0x1.ee59dap-50f, r);
    float r2 = r * r;
    float sp = __builtin_fmaf(__builtin_fmaf(-0x1.994388p-13f, r2, 0x1.11073ap-7f), r2, -0x1.555546p-3f);
    float sn = __builtin_fmaf(sp, r2 * r, r);
    float cp = __builtin_fmaf(__builtin_fmaf(0x1.99eb4ap-16f, r2, -0x1.6c0c32p-10f), r2, 0x1.55554ap-5f);
    float cs = __builtin_fmaf(__builtin_fmaf(cp, r2, -0.5f), r2, 1.0f);
    int quadrant = ((int)q + cosine) & 3;
    float v = (quadrant & 1) ? cs : sn;
    return (quadrant & 2) ? -v : v;
}

float __attribute__((overloadable)) sin(float x) {
    return __ml_sincos(x, 0);
}

float __attribute__((overloadable)) cos(float x) {
    return __ml_sincos(x, 1);
}

// The vector forms, lane by lane.
#define ML_VECTORS2(name)                                                                          \
    float2 __attribute__((overloadable)) name(float2 x, float2 y) {                                \
        return (float2)(name(x.s0, y.s0), name(x.s1, y.s1));                                       \
    }                                                                                              \
    float3 __attribute__((overloadable)) name(float3 x, float3 y) {                                \
        return (float3)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2));                     \
    }                                                                                              \
    float4 __attribute__((overloadable)) name(float4 x, float4 y) {                                \
        return (float4)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2), name(x.s3, y.s3));   \
    }                                                                                              \
    float8 __attribute__((overloadable)) name(float8 x, float8 y) {                                \
        return (float8)(name(x.lo, y.lo), name(x.hi, y.hi));                                       \
    }                                                                                              \
    float16 __attribute__((overloadable)) name(float16 x, float16 y) {                             \
        return (float16)(name(x.lo, y.lo), name(x.hi, y.hi));                                      \
    }

#define ML_VECTORS(name)                                                                           \
    float2 __attribute__((overloadable)) name(float2 x) { return (float2)(name(x.s0), name(x.s1)); } \
    float3 __attribute__((overloadable)) name(float3 x) {                                          \
        return (float3)(name(x.s0), name(x.s1), name(x.s2));                                       \
    }                                                                                              \
    float4 __attribute__((overloadable)) name(float4 x) {                                          \
        return (float4)(name(x.s0), name(x.s1), name(x.s2), name(x.s3));                           \
    }                                                                                              \
    float8 __attribute__((overloadable)) name(float8 x) { return (float8)(name(x.lo), name(x.hi)); } \
    float16 __attribute__((overloadable)) name(float16 x) { return (float16)(name(x.lo), name(x.hi)); }

ML_VECTORS(exp)
ML_VECTORS(exp2)
ML_VECTORS(exp10)
ML_VECTORS(log)
ML_VECTORS(log2)
ML_VECTORS(log10)
ML_VECTORS(sin)
ML_VECTORS(cos)
ML_VECTORS2(pow)
ML_VECTORS2(powr)
