// Float exponentials and logarithms for cudacl, in place of libclc's: compiled once per process by
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
//    rest f goes through ex2.approx. At most 2.8 ulp: 0.79 from the reduction (every third float
//    checked on the host with a correctly rounded 2^f), plus the instruction's 2.
//  - log(x), log2(x), log10(x): x = 2^e * m with m in [2/3, 4/3), log1p(m - 1) as f + f^2 p(f)
//    with p of degree 8 (minimax for the relative error on [-1/3, 1/3], 2^-26.5), the sum with
//    e * log(2) in two floats. Every operation is an IEEE float operation, so the host checked
//    every third float exactly as the GPU computes it: at most 0.96, 1.23 and 1.27 ulp.
// Results that are subnormal (exp below -87, exp2 below -125.5, exp10 below -37.7) are not taken
// from here: the IR rewrites (bridge/libclc_fixes.cpp, fixFloatSubnormalCalls) compute those
// lanes in double first. Subnormal arguments of the logarithms are scaled by 2^23 here.

float __ml_ex2(float x) __asm("llvm.nvvm.ex2.approx.f");

// 2^(x * (lh + ll)) as NVIDIA's OpenCL computes exp: j the product rounded to an integer, kept
// in [-125, 128]; f = x * (lh + ll) - j by two fmas (|f| <= 0.5 where the result is normal, so
// the reduction costs at most 0.79 ulp, checked over every float); 2^f from ex2.approx; the
// scaling by 2^j exact (2 * 2^(j-1): 2^128 is no float). No branch, no special case: an infinite
// or NaN x carries through f, and beyond the clamp 2^f itself overflows or vanishes.
static inline float __ml_exp_base(float x, float lh, float ll) {
    float j = fmin(fmax(__builtin_rintf(x * lh), -125.0f), 128.0f);
    float f = __builtin_fmaf(x, lh, -j);
    f = __builtin_fmaf(x, ll, f);
    return (__ml_ex2(f) * 2.0f) * as_float(((int)j + 126) << 23);
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

// The vector forms, lane by lane.
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
