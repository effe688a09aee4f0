// Host accuracy check of src/mathlib.cl's float functions (tests/mathlib_host.rs builds and runs
// it in sampled form; run by hand for the full sweep). The file compiles mathlib.cl itself as C:
// the OpenCL built-ins it uses map onto the C library's float functions, and the GPU
// instructions it declares (ex2.approx, div.approx, rsqrt.approx, lg2.approx) are emulated as the
// exact value perturbed by their documented worst error, toward -inf in one pass and toward +inf
// in the other (ml_mode), every float operation otherwise being the IEEE one the GPU does
// (-ffp-contract=off: only the explicit fmas fuse, as in the OpenCL build).
//
//   cc -O2 -ffp-contract=off host.c -lm -o host
//   ./host [STRIDE [FUNCTION...]]   every STRIDE-th float (1: all 2^32, or for an odd or even
//                                   function all positive ones and every 7th negative one) for
//                                   each function named (default: all), both directions of error;
//                                   atan2 on 2^34 / STRIDE random pairs and a grid of edge values.
// Prints each function's max ulp error and where; exits 1 when one is above its bound or gets a
// special case (section 7.5.1 / C99 F.9) wrong.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

static int ml_mode; // -1, 0, +1: the approximations' error at its worst below, none, above

static inline int as_int(float f) {
    int i;
    memcpy(&i, &f, 4);
    return i;
}
static inline float as_float(int i) {
    float f;
    memcpy(&f, &i, 4);
    return f;
}
// The exact value v moved by 2 ulps (of v's own binade, as the CTS measures ulps) in the
// direction ml_mode says, rounded to the float nearest to that which is still within the 2 ulps.
static float worst(double v) {
    if (!isfinite(v) || v == 0 || ml_mode == 0) return (float)v;
    int e;
    frexp(v, &e); // |v| in [2^(e-1), 2^e)
    double u = ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
    double w = v + 2 * ml_mode * u;
    float r = (float)w;
    if (fabs((double)r - v) > 2 * u) r = nextafterf(r, ml_mode > 0 ? -INFINITY : INFINITY);
    return r;
}
// ex2.approx.f32: 2 ulp (PTX ISA; CUDA's exp2f is this instruction and documents 2 ulp); exact
// for integer arguments (powers of two; exp(0) = 1 and such rely on it)
float __ml_ex2(float x) { return x == rintf(x) ? (float)exp2((double)x) : worst(exp2((double)x)); }
// div.approx.f32: 2 ulp for |b| in [2^-126, 2^126]
float __ml_div_approx(float a, float b) { return worst((double)a / (double)b); }
// rsqrt.approx.f32: 2^-22.9 relative; 2 ulp taken
float __ml_rsqrt(float x) { return worst(1.0 / sqrt((double)x)); }
// lg2.approx.f32: 2^-22.6 absolute for arguments near 1, relative 2^-22 beyond; 2^-22 of
// max(1, |log2 x|) taken
float __ml_lg2(float x) {
    double l = log2((double)x);
    return (float)(l + ml_mode * ldexp(fmax(1.0, fabs(l)), -22));
}
// The out-of-line fallbacks (libclc's double functions rounded to float on the GPU)
static float __ml_pow_other(float x, float y, int r) {
    (void)r;
    return powf(x, y);
}
static float __ml_sincos_big(float x, int cosine) {
    return cosine ? (float)cos((double)x) : (float)sin((double)x);
}
static float __ml_tan_big(float x) { return (float)tan((double)x); }
static float __ml_atan2_other(float y, float x) { return (float)atan2((double)y, (double)x); }

// mathlib.cl's names, renamed away from the C library's; the float forms of what it calls.
#define ML_HOST 1
#define overloadable
#define __asm(name)
#define exp ml_exp
#define exp2 ml_exp2
#define exp10 ml_exp10
#define log ml_log
#define log2 ml_log2
#define log10 ml_log10
#define pow ml_pow
#define powr ml_powr
#define sin ml_sin
#define cos ml_cos
#define tan ml_tan
#define atan ml_atan
#define atan2 ml_atan2
#define asin ml_asin
#define acos ml_acos
#define tanh ml_tanh
#define sinh ml_sinh
#define cosh ml_cosh
#define log1p ml_log1p
#define expm1 ml_expm1
#define cbrt ml_cbrt
#define erf ml_erf
#define erfc ml_erfc
#define fmin fminf
#define fmax fmaxf
#define fabs fabsf
#define copysign copysignf
#include "../../src/mathlib.cl"
#undef exp
#undef exp2
#undef exp10
#undef log
#undef log2
#undef log10
#undef pow
#undef powr
#undef sin
#undef cos
#undef tan
#undef atan
#undef atan2
#undef asin
#undef acos
#undef tanh
#undef sinh
#undef cosh
#undef log1p
#undef expm1
#undef cbrt
#undef erf
#undef erfc
#undef fmin
#undef fmax
#undef fabs
#undef copysign

// The functions, their double references (glibc's, within an ulp of double) and OpenCL 1.2's
// bounds (table 7.1).
static double r_exp10(double x) { return pow(10.0, x); }

// odd: f(-x) = -f(x) exactly as computed (|x| and the sign put back, or a symmetric reduction),
// even: f(-x) = f(x); the negative half is then sampled (every 7th float) by the full sweep.
struct fn {
    const char *name;
    float (*f)(float);
    double (*ref)(double);
    double bound;
    int symmetric;
};
static const struct fn fns[] = {
    {"tan", ml_tan, tan, 5, 1},       {"atan", ml_atan, atan, 5, 1},      {"asin", ml_asin, asin, 4, 1},
    {"acos", ml_acos, acos, 4, 0},    {"tanh", ml_tanh, tanh, 5, 1},      {"sinh", ml_sinh, sinh, 4, 1},
    {"cosh", ml_cosh, cosh, 4, 1},    {"log1p", ml_log1p, log1p, 2, 0},   {"expm1", ml_expm1, expm1, 3, 0},
    {"cbrt", ml_cbrt, cbrt, 2, 1},    {"erf", ml_erf, erf, 16, 1},        {"erfc", ml_erfc, erfc, 16, 0},
    // the earlier ones (pow and powr are not here: their fast path's region is two-dimensional)
    {"sin", ml_sin, sin, 4, 1},       {"cos", ml_cos, cos, 4, 1},         {"exp", ml_exp, exp, 3, 0},
    {"exp10", ml_exp10, r_exp10, 3, 0}, {"log", ml_log, log, 3, 0},       {"log2", ml_log2, log2, 3, 0},
    {"log10", ml_log10, log10, 3, 0},
};

// The error of got in ulps of the correctly rounded result (the CTS's measure: ulps of the
// reference's binade, 2^-149 at least; a reference beyond FLT_MAX that rounds to inf wants inf).
static double ulps(float got, double ref) {
    if (isnan(ref)) return isnan(got) ? 0 : INFINITY;
    if (isnan(got)) return INFINITY;
    float rf = (float)ref;
    if (isinf(rf) || isinf(got)) return (got == rf) ? 0 : INFINITY;
    int e;
    frexp(ref, &e); // ref = m 2^e, m in [0.5, 1)
    if (ref == 0) e = -148;
    double u = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
    return fabs((double)got - ref) / u;
}

static int bad;

// Special values: the result must be the correctly rounded one bit for bit (signed zeros,
// infinities, NaN), as the C library gives them (C99 F.9 = OpenCL section 7.5.1).
static void specials(const struct fn *f) {
    const float xs[] = {0.0f,           -0.0f,         INFINITY,   -INFINITY,       NAN,
                        -NAN,           1.0f,          -1.0f,      0x1p-149f,       -0x1p-149f,
                        0x1p-126f,      -0x1p-126f,    0x1.fffffep127f, -0x1.fffffep127f,
                        0x1.000002p0f,  -0x1.000002p0f};
    for (int m = -1; m <= 1; m++) {
        ml_mode = m;
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            float got = f->f(xs[i]);
            float want = (float)f->ref((double)xs[i]);
            int same = (isnan(want) && isnan(got)) || as_int(got) == as_int(want);
            // exact zeros, infinities and NaN must match bit for bit; others within the bound
            int exact = want == 0 || isinf(want) || isnan(want) || xs[i] == 0 || isinf(xs[i]) || isnan(xs[i]);
            if (!same && exact) {
                printf("%s(%a) = %a, want %a (mode %d)\n", f->name, xs[i], got, want, m);
                bad = 1;
            }
        }
    }
}

// Under -cl-denorms-are-zero the GPU flushes subnormal arguments and results to zero (the host's
// SSE unit does the same with MXCSR's DAZ and FTZ bits): a subnormal x must then give either f's
// result for a zero of x's sign (the CTS's rule for that mode) or f(x) within the bound; never
// anything else (cbrt of -0x1p-141 once gave NaN there: its scaling of tiny arguments became 0).
#if defined(__SSE__)
static void flushed(const struct fn *f) {
    const float xs[] = {0x1p-149f, -0x1p-149f, 0x1p-141f, -0x1p-141f, 0x1.8p-130f, -0x1.8p-130f, 0x1.fffffcp-127f,
                        -0x1.fffffcp-127f};
    unsigned csr = _mm_getcsr();
    for (int m = -1; m <= 1; m++) {
        ml_mode = m;
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            _mm_setcsr(csr | 0x8040); // FTZ (bit 15) and DAZ (bit 6)
            float got = f->f(xs[i]);
            _mm_setcsr(csr);
            if (fpclassify(got) == FP_SUBNORMAL) got = copysignf(0.0f, got);
            float zero = (float)f->ref(xs[i] < 0 ? -0.0 : 0.0);
            if (as_int(got) != as_int(zero) && !(ulps(got, f->ref((double)xs[i])) <= f->bound)) {
                printf("%s(%a) = %a with subnormals flushed, want %a or f(x) (mode %d)\n", f->name, xs[i], got, zero, m);
                bad = 1;
            }
        }
    }
}
#else
static void flushed(const struct fn *f) {
    printf("%s: flush-to-zero check skipped: no SSE unit to flush subnormals on this host\n", f->name);
}
#endif

static void sweep(const struct fn *f, uint64_t stride) {
    double worst[3] = {0, 0, 0};
    uint32_t at[3] = {0, 0, 0};
    for (uint64_t u = 0; u < (1ull << 32);) {
        float x = as_float((int)(uint32_t)u);
        double ref = f->ref((double)x);
        for (int m = -1; m <= 1; m++) {
            ml_mode = m;
            double e = ulps(f->f(x), ref);
            if (!(e <= worst[m + 1])) {
                worst[m + 1] = e;
                at[m + 1] = (uint32_t)u;
            }
        }
        u += (f->symmetric && stride == 1 && u >= (1ull << 31)) ? 7 : stride;
    }
    double w = 0;
    for (int m = 0; m < 3; m++) w = worst[m] > w ? worst[m] : w;
    printf("%-6s max %.3f ulp (bound %g; exact approximations %.3f at %a; -2 ulp %.3f at %a; +2 ulp %.3f at %a)\n",
           f->name, w, f->bound, worst[1], as_float((int)at[1]), worst[0], as_float((int)at[0]), worst[2],
           as_float((int)at[2]));
    fflush(stdout);
    if (!(w <= f->bound)) bad = 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

// atan2: special pairs bit for bit, a grid of edge values, random pairs (uniform in the bits,
// and near each other so that the quotient spans [0, 1] finely).
static void sweep_atan2(uint64_t n) {
    const float edge[] = {0.0f,      -0.0f,      INFINITY,        -INFINITY,        NAN,
                          1.0f,      -1.0f,      0x1p-149f,       -0x1p-149f,       0x1p-126f,
                          -0x1p-126f, 0x1.fffffep127f, -0x1.fffffep127f, 0x1p126f,  0x1.000002p126f,
                          3.0f,      -3.0f,      0x1p-100f,       0x1p100f,         0x1.fffffep-127f};
    size_t ne = sizeof edge / sizeof edge[0];
    double worst = 0;
    float wy = 0, wx = 0;
    for (int m = -1; m <= 1; m++) {
        ml_mode = m;
        for (size_t i = 0; i < ne; i++)
            for (size_t j = 0; j < ne; j++) {
                float y = edge[i], x = edge[j];
                float got = ml_atan2(y, x);
                double ref = atan2((double)y, (double)x);
                float want = (float)ref;
                int special = y == 0 || x == 0 || isinf(y) || isinf(x) || isnan(y) || isnan(x);
                int same = (isnan(want) && isnan(got)) || as_int(got) == as_int(want);
                if (special ? !same : !(ulps(got, ref) <= 6)) {
                    printf("atan2(%a, %a) = %a, want %a (mode %d)\n", y, x, got, want, m);
                    bad = 1;
                }
            }
    }
    for (uint64_t k = 0; k < n; k++) {
        uint32_t a = next32(), b;
        if (k & 1)
            b = next32();
        else // within 2^26 ulps of a, either sign
            b = (a & 0x7fffffffu) + (next32() >> 6) - (1u << 25) + (next32() & 0x80000000u);
        float y = as_float((int)a), x = as_float((int)b);
        if (k & 2) {
            float t = x;
            x = y;
            y = t;
        }
        double ref = atan2((double)y, (double)x);
        for (int m = -1; m <= 1; m++) {
            ml_mode = m;
            double e = ulps(ml_atan2(y, x), ref);
            if (!(e <= worst)) {
                worst = e;
                wy = y;
                wx = x;
            }
        }
    }
    printf("atan2  max %.3f ulp (bound 6) at (%a, %a), %llu random pairs\n", worst, wy, wx,
           (unsigned long long)n);
    if (!(worst <= 6)) bad = 1;
}

int main(int argc, char **argv) {
    uint64_t stride = argc > 1 ? strtoull(argv[1], 0, 0) : 1;
    if (stride == 0) stride = 1;
    size_t nf = sizeof fns / sizeof fns[0];
    for (size_t i = 0; i < nf; i++) {
        int want = argc <= 2;
        for (int a = 2; a < argc; a++) want |= strcmp(argv[a], fns[i].name) == 0;
        if (!want) continue;
        specials(&fns[i]);
        flushed(&fns[i]);
        sweep(&fns[i], stride);
    }
    int want = argc <= 2;
    for (int a = 2; a < argc; a++) want |= strcmp(argv[a], "atan2") == 0;
    if (want) sweep_atan2((1ull << 32) / stride * 4);
    return bad;
}
