// Float exponentials, logarithms, powers, sine, cosine, tangent, the inverse trigonometric and
// hyperbolic functions, log1p, expm1, cbrt, erf and erfc for cudacl, in place of libclc's:
// compiled once per process by ptxgen's own clang and linked into the programs that call them
// (src/mathlib.rs, bridge/builtin_library.cpp), before libclc, as images.cl and subgroups.cl are.
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
// The functions after sin and cos (tan, atan, atan2, asin, acos, sinh, cosh, tanh, expm1, log1p,
// cbrt, erf, erfc) have their own notes below; libclc's forms of them were 0.2-0.45x NVIDIA's
// speed (generic code with correctly rounded divisions and long paths).
// exp and exp10 give subnormal results themselves; exp2's (below -125.5) are not taken from here:
// the IR rewrites (bridge/libclc_fixes.cpp, fixFloatSubnormalCalls) compute those lanes in double
// first. Subnormal arguments of the logarithms are scaled by 2^23 here.

// The helpers below are always_inline as the built-ins themselves are (builtin_library.cpp):
// under -cl-denorms-are-zero the kernel's functions carry another denormal mode than this
// library's, and LLVM's inliner leaves calls between functions of different modes alone, so
// that plain inline helpers stayed calls once the built-in was inlined into the kernel.
#define ML_INLINE static inline __attribute__((always_inline))

// The GPU's approximations, as PTX instructions (the host test, tests/mathlib/host.c, defines
// these as C functions that emulate them with their documented worst error):
//  ex2.approx.f32 (2 ulp), div.approx.f32 (2 ulp for divisors in [2^-126, 2^126]),
//  rsqrt.approx.f32 (2^-22.9 relative), lg2.approx.f32 (2^-22 absolute near 1, relative beyond).
float __ml_ex2(float x) __asm("llvm.nvvm.ex2.approx.f");
float __ml_div_approx(float a, float b) __asm("llvm.nvvm.div.approx.f");
float __ml_rsqrt(float x) __asm("llvm.nvvm.rsqrt.approx.f");
float __ml_lg2(float x) __asm("llvm.nvvm.lg2.approx.f");

// 2^(x * (lh + ll)), computed as NVIDIA's OpenCL computes exp: j the product rounded to an
// integer, kept in [-151, 128]; f = x * (lh + ll) - j by two fmas (|f| <= 0.5 wherever the result
// is not 0 or inf); 2^f from ex2.approx; then the scaling by 2^j in two exact steps of normal
// powers of two, so that a subnormal result is rounded once, by the last multiplication. At most
// 0.87 ulp from the reduction and the scaling (every third float checked on the host with a
// correctly rounded 2^f, subnormal results included). No branch and no special case: an
// infinite or NaN x carries through f, and beyond the clamp 2^f itself overflows or vanishes.
ML_INLINE float __ml_exp_base(float x, float lh, float ll) {
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

// log1p(f) = f + f^2 p(f) on [-1/3, 1/3]: returns p
ML_INLINE float __ml_log1p_poly(float f) {
    float p = -0x1.099f98p-3f;
    p = __builtin_fmaf(p, f, 0x1.1f3c2cp-3f);
    p = __builtin_fmaf(p, f, -0x1.f22ee8p-4f);
    p = __builtin_fmaf(p, f, 0x1.1eaa60p-3f);
    p = __builtin_fmaf(p, f, -0x1.55a8f0p-3f);
    p = __builtin_fmaf(p, f, 0x1.99d30ep-3f);
    p = __builtin_fmaf(p, f, -0x1.fffe7ap-3f);
    p = __builtin_fmaf(p, f, 0x1.555500p-2f);
    return __builtin_fmaf(p, f, -0x1.000000p-1f);
}

// log_b(x) = e * ch + e * cl + log1p(f) * (dh + dl), dh = 1 and dl = 0 for the natural logarithm
ML_INLINE float __ml_log_base(float x, float ch, float cl, float dh, float dl, int natural) {
    float sub = x < 0x1p-126f ? 0x1p23f : 1.0f;
    float xs = x * sub;
    int ix = as_int(xs) - 0x3f2aaaab;
    int ei = ix >> 23;
    float m = as_float(as_int(xs) - (ei << 23));
    float f = m - 1.0f;
    float lo = (f * f) * __ml_log1p_poly(f);
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
#ifndef ML_HOST // (the host test defines the out-of-line fallbacks with the C library's functions)
float __attribute__((overloadable)) __clc_pow(float, float);
float __attribute__((overloadable)) __clc_powr(float, float);
__attribute__((noinline)) static float __ml_pow_other(float x, float y, int r) {
    return r ? __clc_powr(x, y) : __clc_pow(x, y);
}
#endif

ML_INLINE float __ml_pow(float x, float y, int r) {
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
#ifndef ML_HOST
__attribute__((noinline)) static float __ml_sincos_big(float x, int cosine) {
    return cosine ? (float)cos((double)x) : (float)sin((double)x);
}
#endif

ML_INLINE float __ml_sincos(float x, int cosine) {
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

// sin(-0) = -0: the reduction's sum makes +0 of it
float __attribute__((overloadable)) sin(float x) {
    return x == 0.0f ? x : __ml_sincos(x, 0);
}

float __attribute__((overloadable)) cos(float x) {
    return __ml_sincos(x, 1);
}

// ---- tan, the inverse trigonometric and the hyperbolic functions, expm1, log1p, cbrt, erf, erfc ----
// As above: fma polynomials (fitted here for the relative error, coefficients rounded to float
// one at a time and the rest refitted), no correctly rounded division; where a quotient is
// needed, div.approx (2 ulp) refined by one Newton step on its residual (__ml_div: within about
// 0.5 ulp plus 2^-40 relative). The max ulp of each function is from tests/mathlib/host.c over
// every float (for the odd and even ones, whose sign handling is exact: every positive float and
// every 7th negative one), every operation the IEEE float one the GPU does, and the GPU's
// approximations emulated at their documented worst error in both directions
// (tests/mathlib_host.rs runs a sample of it), against the C library's double functions.

// copysign(a, x) by the sign bit: LLVM lowers copysign for NVPTX to abs, neg, a sign test and a
// select; this is one LOP3 after ptxas.
ML_INLINE float __ml_copysign(float a, float x) {
    return as_float((as_int(a) & 0x7fffffff) | (as_int(x) & (int)0x80000000));
}

// a / b for b in [2^-126, 2^126], a and the quotient finite: div.approx's 1/b, q = a * (1/b),
// then q + (a - q b) / b, the residual exact by fma.
ML_INLINE float __ml_div(float a, float b) {
    float r = __ml_div_approx(1.0f, b);
    float q = a * r;
    return __builtin_fmaf(__builtin_fmaf(-b, q, a), r, q);
}

#define ML_PIO2_HI 0x1.921fb6p+0f  // pi/2 rounded (above it) ...
#define ML_PIO2_LO -0x1.777a5cp-25f // ... and the rest
#define ML_PI_HI 0x1.921fb6p+1f
#define ML_PI_LO -0x1.777a5cp-24f

// atan(r) for r in [0, 1]: r + r^3 p(r^2), p of degree 8 (2^-28.5 relative).
ML_INLINE float __ml_atan01(float r) {
    float t = r * r;
    float p = -0x1.d5581ap-10f;
    p = __builtin_fmaf(p, t, 0x1.652948p-7f);
    p = __builtin_fmaf(p, t, -0x1.fe581cp-6f);
    p = __builtin_fmaf(p, t, 0x1.da8a34p-5f);
    p = __builtin_fmaf(p, t, -0x1.5820f8p-4f);
    p = __builtin_fmaf(p, t, 0x1.c092dep-4f);
    p = __builtin_fmaf(p, t, -0x1.2420fap-3f);
    p = __builtin_fmaf(p, t, 0x1.9991eap-3f);
    p = __builtin_fmaf(p, t, -0x1.55553ep-2f);
    return __builtin_fmaf(r * t, p, r);
}

// atan (5 ulp allowed): |x| > 1 as pi/2 - atan(1/|x|), the reciprocal of |x| (clamped at 2^26,
// where pi/2 - 1/x rounds to pi/2 already, which keeps inf out of __ml_div) by __ml_div; the sign
// of x put back (atan(+-0) = +-0, atan(+-inf) = +-pi/2; NaN stays NaN through the select).
// Host, every float: at most 1.38 ulp.
float __attribute__((overloadable)) atan(float x) {
    float ax = fabs(x);
    float r = ax > 1.0f ? __ml_div(1.0f, fmin(ax, 0x1p26f)) : ax;
    float a = __ml_atan01(r);
    a = ax > 1.0f ? (ML_PIO2_HI - a) + ML_PIO2_LO : a;
    return __ml_copysign(a, x);
}

// atan2 (6 ulp allowed): a = atan of min(|x|,|y|) / max(|x|,|y|) (__ml_div), then pi/2 -+ a
// where |y| > |x|, pi - a where x < 0, and y's sign. Where max(|x|,|y|) is 0, inf, NaN or above
// 2^62 (the zeros and infinities of section 7.5.1, and quotients div.approx does not cover),
// the double atan2 (libclc's) rounded to float, out of line.
// Host (every pair of a grid of edge values, and 2^30 random pairs): at most 1.53 ulp.
#ifndef ML_HOST
__attribute__((noinline)) static float __ml_atan2_other(float y, float x) {
    return (float)atan2((double)y, (double)x);
}
#endif

float __attribute__((overloadable)) atan2(float y, float x) {
    float ax = fabs(x), ay = fabs(y);
    int swap = ay > ax; // false for a NaN: a NaN y ends up in mn and through the quotient
    float mx = swap ? ay : ax, mn = swap ? ax : ay;
    if (!(mx > 0.0f && mx <= 0x1p62f)) return __ml_atan2_other(y, x);
    // both scaled by 2^64 where mn < 2^-62: mn's residual in __ml_div then stays normal, and mx
    // is at least 2^-85 (div.approx's range)
    float sc = mn < 0x1p-62f ? 0x1p64f : 1.0f;
    float a = __ml_atan01(__ml_div(mn * sc, mx * sc));
    // a, pi/2 - a, pi/2 + a or pi - a, the constant in two floats; x = -0 is on the a side
    // (y is not 0 here: atan2(y, -0) = +-pi/2)
    int neg = x < 0.0f;
    float ch = swap ? ML_PIO2_HI : (neg ? ML_PI_HI : 0.0f);
    float cl = swap ? ML_PIO2_LO : (neg ? ML_PI_LO : 0.0f);
    a = (ch + (swap != neg ? -a : a)) + cl;
    return __ml_copysign(a, y);
}

// asin(s) for s in [0, 0.5], t = s^2: s + s^3 p(t), p of degree 5 (2^-31.7 relative).
ML_INLINE float __ml_asin05(float s, float t) {
    float p = 0x1.34db12p-5f;
    p = __builtin_fmaf(p, t, 0x1.d4fb38p-7f);
    p = __builtin_fmaf(p, t, 0x1.04d452p-5f);
    p = __builtin_fmaf(p, t, 0x1.6ca744p-5f);
    p = __builtin_fmaf(p, t, 0x1.3338acp-4f);
    p = __builtin_fmaf(p, t, 0x1.55554cp-3f);
    return __builtin_fmaf(s * t, p, s);
}

// asin(|x|) reduced to [0, 0.5]: for |x| > 0.5, asin(|x|) = pi/2 - 2 asin(s) with
// s = sqrt((1 - |x|) / 2) (z = (1 - |x|) / 2 exact; the square root from rsqrt.approx refined by
// one Newton step; z + 2^-100 keeps rsqrt finite at z = 0, |x| = 1, and equals z elsewhere in
// that range; z < 0, |x| > 1, gives NaN). Returns asin(s) and sets *big.
ML_INLINE float __ml_asin_reduced(float ax, int *big) {
    *big = ax > 0.5f;
    float z = *big ? __builtin_fmaf(-0.5f, ax, 0.5f) : ax * ax;
    float rs = __ml_rsqrt(z + 0x1p-100f);
    float s0 = z * rs;
    float s = __builtin_fmaf(__builtin_fmaf(-s0, s0, z), 0.5f * rs, s0);
    return __ml_asin05(*big ? s : ax, z);
}

// asin (4 ulp allowed): the reduction above, then the sign of x.
// Host, every float: at most 1.83 ulp.
float __attribute__((overloadable)) asin(float x) {
    int big;
    float a = __ml_asin_reduced(fabs(x), &big);
    a = big ? __builtin_fmaf(-2.0f, a, ML_PIO2_HI) + ML_PIO2_LO : a;
    return __ml_copysign(a, x);
}

// acos (4 ulp allowed): pi/2 - asin(x) for |x| <= 0.5; 2 asin(s) for x > 0.5 (acos(1) = +0);
// pi - 2 asin(s) for x < -0.5. Host, every float: at most 1.25 ulp.
float __attribute__((overloadable)) acos(float x) {
    int big;
    float a = __ml_asin_reduced(fabs(x), &big);
    float mid = (ML_PIO2_HI - __ml_copysign(a, x)) + ML_PIO2_LO;
    float neg = __builtin_fmaf(-2.0f, a, ML_PI_HI) + ML_PI_LO;
    return big ? (x > 0.0f ? 2.0f * a : neg) : mid;
}

// tan (5 ulp allowed): sin and cos's reduction (q = x * 2/pi rounded, r = x - q pi/2 with pi/2
// in three floats, for |x| <= 105615), tan(r) = r + r^3 p(r^2) on [-pi/4, pi/4] (p of degree 6,
// 2^-29.5 relative), and -1/tan(r) in odd quadrants (__ml_div's reciprocal; tan(r) is never
// near 0 there). tan(-0) = -0 by the last select (the reduction's sum makes +0 of it). Beyond
// 105615 and for inf and NaN, the double tan (libclc's, exact reduction) rounded to float, out
// of line. Host, every float: at most 2.91 ulp.
#ifndef ML_HOST
__attribute__((noinline)) static float __ml_tan_big(float x) {
    return (float)tan((double)x);
}
#endif

float __attribute__((overloadable)) tan(float x) {
    if (!(fabs(x) <= 105615.0f)) return __ml_tan_big(x);
    float q = __builtin_rintf(x * 0x1.45f306p-1f);
    float r = __builtin_fmaf(q, -0x1.921fb6p+0f, x);
    r = __builtin_fmaf(q, 0x1.777a5cp-25f, r);
    r = __builtin_fmaf(q, 0x1.ee59dap-50f, r);
    float t = r * r;
    float p = 0x1.1e8c02p-8f;
    p = __builtin_fmaf(p, t, 0x1.9e6a6ep-14f);
    p = __builtin_fmaf(p, t, 0x1.62c864p-7f);
    p = __builtin_fmaf(p, t, 0x1.5cc12ep-6f);
    p = __builtin_fmaf(p, t, 0x1.bad9bep-5f);
    p = __builtin_fmaf(p, t, 0x1.110d9ep-3f);
    p = __builtin_fmaf(p, t, 0x1.555560p-2f);
    float tn = __builtin_fmaf(r * t, p, r);
    float rc = __ml_div_approx(1.0f, tn);
    rc = __builtin_fmaf(__builtin_fmaf(-tn, rc, 1.0f), rc, rc);
    float v = ((int)q & 1) ? -rc : tn;
    return x == 0.0f ? x : v;
}

// e^x = 2^k (1 + rr + lo): k = x log2(e) rounded (clamped to [-60, 130], which keeps the
// conversion defined; a NaN x carries through r), r = x - k log(2) exact by fma with log(2)'s
// first 15 bits (k has at most 8), then rr = r - k log(2)'s rest and c the rounding error of that,
// and expm1(rr + c) = rr + lo with lo = rr^2 p(rr) + c (1 + rr), p of degree 5 on
// [-log(2)/2, log(2)/2] (2^-31 relative). Only float operations: no ex2.approx error to carry.
ML_INLINE float __ml_exp_reduce(float x, int *ki, float *lo) {
    float k = fmin(fmax(__builtin_rintf(x * 0x1.715476p+0f), -60.0f), 130.0f);
    float r = __builtin_fmaf(k, -0x1.62e400p-1f, x);
    float rr = __builtin_fmaf(k, -0x1.7f7d1cp-20f, r);
    float c = __builtin_fmaf(k, -0x1.7f7d1cp-20f, r - rr);
    float p = 0x1.9e7cf8p-13f;
    p = __builtin_fmaf(p, rr, 0x1.6d3a84p-10f);
    p = __builtin_fmaf(p, rr, 0x1.1112d4p-7f);
    p = __builtin_fmaf(p, rr, 0x1.5554f8p-5f);
    p = __builtin_fmaf(p, rr, 0x1.555554p-3f);
    p = __builtin_fmaf(p, rr, 0x1.000000p-1f);
    *lo = __builtin_fmaf(rr * rr, p, __builtin_fmaf(c, rr, c));
    *ki = (int)k;
    return rr;
}

// expm1(x) for x in [-40, 64] (k in [-58, 93]): 2^k expm1(r) + (2^k - 1) in one fma. 2^k - 1 is
// exact for k <= 24; beyond, its rounding error (-1) goes into the low part, scaled by 2^-k.
ML_INLINE float __ml_expm1_mid(float x) {
    int ki;
    float lo;
    float rr = __ml_exp_reduce(x, &ki, &lo);
    float s = as_float((ki + 127) << 23);
    float u = s - 1.0f;
    float du = (s - u) - 1.0f; // 0, or -1 where 2^k - 1 rounded to 2^k
    lo = __builtin_fmaf(du, as_float((127 - ki) << 23), lo);
    return __builtin_fmaf(s, rr + lo, u);
}

// e^x 2^m for x in [0, 89.5] (k + m in [-1, 130]): (1 + rr + lo) 2^(k+m), scaled in two exact
// steps, so that an overflow happens in the last multiplication only.
ML_INLINE float __ml_exp_scaled(float x, int m) {
    int ki;
    float lo;
    float rr = __ml_exp_reduce(x, &ki, &lo);
    int k1 = (ki + m) >> 1, k2 = ki + m - k1;
    return ((1.0f + (rr + lo)) * as_float((k1 + 127) << 23)) * as_float((k2 + 127) << 23);
}

// expm1 (3 ulp allowed): __ml_expm1_mid, x clamped at -40 (the result is -1 from -17.4 on);
// x > 64 is e^x (__ml_exp_scaled, x clamped at 89.5 where it overflows; the -1 is below 2^-92
// of it); |x| < 2^-25 (+-0 and NaN too) returns x. Host, every float: at most 1.35 ulp.
float __attribute__((overloadable)) expm1(float x) {
    if (x > 64.0f) return __ml_exp_scaled(fmin(x, 89.5f), 0);
    float v = __ml_expm1_mid(fmax(x, -40.0f));
    return !(fabs(x) >= 0x1p-25f) ? x : v;
}

// cosh and sinh of a = |x|: for a <= 20, from e = expm1(a) (__ml_expm1_mid): cosh =
// 1 + e^2 / (2 (e + 1)), sinh = (e + e / (e + 1)) / 2, no cancellation in either, the quotients
// by __ml_div; beyond (and NaN), a branch: e^a / 2 = (1 + rr + lo) 2^(k-1) (the e^-a term is
// below 2^-57 of it; a clamped at 89.5, where both overflow already; a NaN stays NaN).
ML_INLINE float __ml_cosh_sinh(float x, int sine) {
    float a = fabs(x);
    if (!(a <= 20.0f)) return __ml_exp_scaled(a > 89.5f ? 89.5f : a, -1);
    float e = __ml_expm1_mid(a);
    return sine ? 0.5f * (e + __ml_div(e, e + 1.0f)) : 1.0f + __ml_div(0.5f * e * e, e + 1.0f);
}

// cosh (4 ulp allowed). Host, every float: at most 2.51 ulp.
float __attribute__((overloadable)) cosh(float x) {
    return __ml_cosh_sinh(x, 0);
}

// sinh (4 ulp allowed), with x's sign. Host, every float: at most 2.18 ulp.
float __attribute__((overloadable)) sinh(float x) {
    return __ml_copysign(__ml_cosh_sinh(x, 1), x);
}

// tanh (5 ulp allowed): e / (e + 2) with e = expm1(2|x|) (__ml_expm1_mid, __ml_div), |x| clamped
// at 10 (tanh rounds to 1 from 9.01 on; a NaN stays NaN), x's sign.
// Host, every float: at most 2.42 ulp.
float __attribute__((overloadable)) tanh(float x) {
    float ax = fabs(x);
    float e = __ml_expm1_mid(2.0f * (ax > 10.0f ? 10.0f : ax));
    return __ml_copysign(__ml_div(e, e + 2.0f), x);
}

// log1p (2 ulp allowed): 1 + x = u + c exactly (Fast2Sum of max(x, 1) and min(x, 1)),
// u = 2^e m with m in [2/3, 4/3) as log's, f = m - 1 exact, and
// log1p(x) = e log(2) + log1p(f) + c 2^-e / m, log1p(f) by log's polynomial and c 2^-e / m as
// d (1 - f + f^2) (d = c 2^-e <= 2^-24 m, so that is exact to 2^-50). -1 gives -inf, below -1
// NaN, +inf +inf; |x| < 2^-24 (+-0 and NaN too) returns x. Host, every float: at most 0.99 ulp.
float __attribute__((overloadable)) log1p(float x) {
    float a = fmax(x, 1.0f), b = fmin(x, 1.0f);
    float u = a + b;
    float c = b - (u - a);
    int ei = (as_int(u) - 0x3f2aaaab) >> 23;
    float f = as_float(as_int(u) - (ei << 23)) - 1.0f;
    float d = c * as_float((127 - (ei > 100 ? 100 : ei)) << 23);
    float p = __ml_log1p_poly(f);
    float lo = __builtin_fmaf(f * f, p, d * __builtin_fmaf(f, f - 1.0f, 1.0f));
    float e = (float)ei;
    float eh = e * 0x1.62e400p-1f, el = e * 0x1.7f7d1cp-20f;
    float w = eh + f;
    float werr = (eh - w) + f; // exact: |eh| >= |f| where e != 0
    float r = w + (werr + (lo + el));
    r = x == INFINITY ? x : r;
    r = x == -1.0f ? -INFINITY : r;
    r = x < -1.0f ? NAN : r;
    return !(fabs(x) >= 0x1p-24f) ? x : r;
}

// cbrt (2 ulp allowed): y = 2^(log2|x| / 3) from lg2.approx and ex2.approx (within 2^-18), then
// one Newton step y + (|x| - y^3) / (3 y^2), the residual with y^2 in two floats (exact to 2^-40)
// and 1 / y^2 as 2^(-2 log2|x| / 3) (its error only scales the correction). |x| < 2^-90
// (subnormals too) is scaled by 2^72 first and the result by 2^-24. +-0, +-inf and NaN return x.
// Host, every float: at most 0.501 ulp.
float __attribute__((overloadable)) cbrt(float x) {
    float ax = fabs(x);
    int tiny = ax < 0x1p-90f;
    float xs = tiny ? ax * 0x1p72f : ax;
    float l = __ml_lg2(xs) * 0x1.555556p-2f;
    float y = __ml_ex2(l), w = __ml_ex2(-2.0f * l);
    float h = y * y, hl = __builtin_fmaf(y, y, -h);
    float res = __builtin_fmaf(-h, y, xs);
    res = __builtin_fmaf(-hl, y, res);
    y = __builtin_fmaf(res * w, 0x1.555556p-2f, y);
    y = tiny ? y * 0x1p-24f : y;
    // a zero, or (-cl-denorms-are-zero) a subnormal x flushed by the scaling: a zero of x's sign
    // (the steps above made a NaN of it: the CTS's FTZ run saw cbrt(-0x1p-141) = NaN)
    y = xs == 0.0f ? 0.0f : y;
    return !(ax < INFINITY) ? x : __ml_copysign(y, x);
}

// erf's polynomial on [0, 0.9]: erf(x) = x p(x^2), p of degree 5 (2^-24.2 relative)
ML_INLINE float __ml_erf_poly(float t) {
    float p = -0x1.183cdep-11f;
    p = __builtin_fmaf(p, t, 0x1.3eabf0p-8f);
    p = __builtin_fmaf(p, t, -0x1.b50808p-6f);
    p = __builtin_fmaf(p, t, 0x1.cdfe8cp-4f);
    p = __builtin_fmaf(p, t, -0x1.812632p-2f);
    return __builtin_fmaf(p, t, 0x1.20dd74p+0f);
}

// erf (16 ulp allowed): for |x| < 0.9, x p(x^2) (p of degree 5, 2^-24.2 relative); beyond,
// 1 - 2^q(|x| - 0.9) with q of degree 7 fitted to log2(erfc) on [0.9, 4] (2^-20.6 absolute:
// erfc to 2^-21 relative, below 0.2), |x| clamped at 4 (erf rounds to 1 from 3.92 on); x's sign.
// A NaN takes the polynomial's side. Host, every float: at most 2.94 ulp.
float __attribute__((overloadable)) erf(float x) {
    float ax = fabs(x);
    float p = __ml_erf_poly(ax * ax);
    float v = fmin(ax, 4.0f) - 0.9f;
    float q = -0x1.51e03ap-16f;
    q = __builtin_fmaf(q, v, 0x1.6d1c16p-12f);
    q = __builtin_fmaf(q, v, -0x1.773b00p-9f);
    q = __builtin_fmaf(q, v, 0x1.fcc248p-7f);
    q = __builtin_fmaf(q, v, -0x1.0ceaa8p-4f);
    q = __builtin_fmaf(q, v, -0x1.32975ap+0f);
    q = __builtin_fmaf(q, v, -0x1.c86bcap+1f);
    q = __builtin_fmaf(q, v, -0x1.265fbep+1f);
    float r = !(ax >= 0.9f) ? ax * p : 1.0f - __ml_ex2(q);
    return __ml_copysign(r, x);
}

// erfc (16 ulp allowed): for |x| < 0.9, 1 - x p(x^2) (erf's polynomial; erfc is above 0.2 there,
// so erf's error grows at most 4 times); for |x| >= 0.9, a = min(|x|, 10.1) (erfc(10.1) rounds
// to 0) and erfc(a) = 2^(-a^2 log2(e)) t h(t - 0.625), t = 1/a (__ml_div), h of degree 9 fitted to
// a e^(a^2) erfc(a) on t in [1/10.2, 1/0.89] (2^-23.2 relative); -a^2 log2(e) in two floats (a^2
// exact as h + l by fma), split into an integer j and f in [-0.5, 0.5]: 2^f by ex2.approx and 2^j
// in two exact steps, so that a subnormal result (a above 9.2) is rounded once; 2 - that for
// x <= -0.9. A NaN takes the polynomial's side. Host, every float: at most 7.59 ulp.
float __attribute__((overloadable)) erfc(float x) {
    float ax = fabs(x);
    float small = __builtin_fmaf(-x, __ml_erf_poly(x * x), 1.0f);
    float a = fmin(ax, 10.1f);
    float t = __ml_div(1.0f, a);
    float u = t - 0.625f;
    float h = -0x1.0fc30ap-5f;
    h = __builtin_fmaf(h, u, 0x1.d5a1f2p-5f);
    h = __builtin_fmaf(h, u, -0x1.ff0980p-6f);
    h = __builtin_fmaf(h, u, -0x1.886034p-7f);
    h = __builtin_fmaf(h, u, 0x1.9e9f92p-5f);
    h = __builtin_fmaf(h, u, -0x1.3f1ea6p-4f);
    h = __builtin_fmaf(h, u, 0x1.271982p-4f);
    h = __builtin_fmaf(h, u, -0x1.5442ecp-10f);
    h = __builtin_fmaf(h, u, -0x1.5f67e0p-3f);
    h = __builtin_fmaf(h, u, 0x1.f545fep-2f);
    // -a^2 log2(e) = eh + el
    float sq = a * a, sql = __builtin_fmaf(a, a, -sq);
    float eh = -sq * 0x1.715476p+0f;
    float el = __builtin_fmaf(-sq, 0x1.715476p+0f, -eh);
    el = __builtin_fmaf(-sq, 0x1.4ae0c0p-26f, el);
    el = __builtin_fmaf(-sql, 0x1.715476p+0f, el);
    float j = __builtin_rintf(eh);
    float f = (eh - j) + el;
    int ji = (int)j, j1 = ji >> 1, j2 = ji - j1;
    float big = ((__ml_ex2(f) * (t * h)) * as_float((j1 + 127) << 23)) * as_float((j2 + 127) << 23);
    float v = !(ax >= 0.9f) ? small : big;
    return x < 0.0f && ax >= 0.9f ? 2.0f - big : v;
}


#ifndef ML_HOST
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
ML_VECTORS(tan)
ML_VECTORS(atan)
ML_VECTORS(asin)
ML_VECTORS(acos)
ML_VECTORS(tanh)
ML_VECTORS(sinh)
ML_VECTORS(cosh)
ML_VECTORS(log1p)
ML_VECTORS(expm1)
ML_VECTORS(cbrt)
ML_VECTORS(erf)
ML_VECTORS(erfc)
ML_VECTORS2(atan2)
#endif // ML_HOST
