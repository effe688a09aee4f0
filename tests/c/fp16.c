/* cl_khr_fp16 on a GPU, self-checking: half arithmetic, fma, conversions to half in each rounding
 * mode (from float, int and double), conversions from half, math built-ins, vectors, relational
 * functions, vload/vstore, shuffle, a half kernel argument and half images, each against a host
 * reference computed exactly (in double, rounded to half here). Prints PASS or FAIL last.
 *
 *   ./fp16          everything (needs a device that runs kernels)
 *   ./fp16 build    the queries and the builds only (what the fake CUDA driver can check)
 *
 * Runs unchanged on another platform named by CL_PLATFORM_NAME (e.g. "NVIDIA CUDA", which has
 * no cl_khr_fp16: it then prints "no cl_khr_fp16" and FAIL). */
#include "common.h"
#include <CL/cl_ext.h>
#include <math.h>
#include <stdint.h>

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static int build_only;

/* ---- host half arithmetic: exact decoding, rounding from double in each mode ------------- */
enum { RTE, RTZ, RTP, RTN };

static double h2d(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return s ? -v : v;
}

/* The half nearest to / below / above a double, as bits (NaN: the canonical quiet NaN). */
static uint16_t d2h(double d, int mode) {
    if (isnan(d)) return 0x7e00;
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    int neg = sign != 0;
    double lo, hi; /* the magnitudes around a (hi = INFINITY above the largest half) */
    if (isinf(a) || a > 65504) {
        lo = 65504;
        hi = INFINITY;
        if (isinf(a)) lo = INFINITY;
    } else {
        int e;
        frexp(a, &e);
        double quantum = e - 1 < -14 ? ldexp(1, -24) : ldexp(1, e - 11);
        lo = floor(a / quantum) * quantum;
        hi = lo == a ? lo : lo + quantum;
        if (hi > 65504) hi = INFINITY;
    }
    double pick;
    if (lo == a) pick = lo;
    else if (mode == RTZ) pick = lo;
    else if (mode == RTP) pick = neg ? lo : hi;
    else if (mode == RTN) pick = neg ? hi : lo;
    else {
        /* nearest, ties to even; above the largest half the boundary is 65520 */
        double up = isinf(hi) ? 65536 : hi; /* 2^16: past the largest half, ties (65520) go there */
        if (a - lo < up - a) pick = lo;
        else if (a - lo > up - a) pick = hi;
        else {
            int e;
            frexp(lo, &e);
            double quantum = e - 1 < -14 ? ldexp(1, -24) : ldexp(1, e - 11);
            pick = fmod(lo / quantum, 2.0) == 0 ? lo : hi;
        }
    }
    if (isinf(pick)) return sign | 0x7c00;
    if (pick < ldexp(1, -14)) return sign | (uint16_t)(pick / ldexp(1, -24));
    int e;
    frexp(pick, &e);
    uint16_t m = (uint16_t)(pick / ldexp(1, e - 11)) - 0x400;
    return sign | (uint16_t)((e - 1 + 15) << 10) | m;
}

static int is_nan_bits(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/* Distance in ulps between two halves (on the ordered line of bit patterns). */
static int ulps(uint16_t a, uint16_t b) {
    int ia = a & 0x8000 ? -(a & 0x7fff) : a, ib = b & 0x8000 ? -(b & 0x7fff) : b;
    return abs(ia - ib);
}

/* ---- OpenCL plumbing --------------------------------------------------------------------- */
static cl_program build(const char *src, const char *opts) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[16384] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        CHECK(0, "build failed %d:\n%s", err, log);
    }
    return p;
}

static cl_mem buffer(size_t size, const void *host) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), size, (void *)host, &err);
    CHECK(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return m;
}

/* Runs kernel `name` of `p` over n work-items with the buffers given (NULL ends the list). */
static void run(cl_program p, const char *name, size_t n, cl_mem *bufs, int nbufs) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(%s): %d", name, err);
    for (int i = 0; i < nbufs; i++) EXPECT(clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]), CL_SUCCESS);
    if (!build_only) {
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clFinish(q), CL_SUCCESS);
    }
    clReleaseKernel(k);
}

static void read_buf(cl_mem m, size_t size, void *dst) {
    EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, dst, 0, NULL, NULL), CL_SUCCESS);
}

#define N 65536 /* every half bit pattern */

/* ---- arithmetic and fma ------------------------------------------------------------------ */
static const char *ARITH =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void arith(global const half *a, global const half *b, global half *sum, global half *prod,\n"
    "                  global half *quot, global half *diff) {\n"
    "  size_t i = get_global_id(0);\n"
    "  sum[i] = a[i] + b[i]; prod[i] = a[i] * b[i]; quot[i] = a[i] / b[i]; diff[i] = a[i] - b[i];\n"
    "}\n"
    "kernel void fmas(global const half *a, global const half *b, global const half *c, global half *r,\n"
    "                 global half4 *r4) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[i] = fma(a[i], b[i], c[i]);\n"
    "  if (i % 4 == 0) r4[i / 4] = fma(vload4(i / 4, a), vload4(i / 4, b), vload4(i / 4, c));\n"
    "}\n"
    "kernel void scalar_arg(global half *r, half s) { r[get_global_id(0)] = s * (half)2.0h; }\n";

static uint16_t A[N], Bv[N], C[N], R[4][N];

static void test_arith(void) {
    cl_program p = build(ARITH, NULL);
    for (int i = 0; i < N; i++) {
        A[i] = (uint16_t)i;
        Bv[i] = (uint16_t)(i * 40503u + 12345u);
    }
    cl_mem a = buffer(sizeof A, A), b = buffer(sizeof Bv, Bv), r[4];
    for (int j = 0; j < 4; j++) r[j] = buffer(sizeof R[j], NULL);
    cl_mem args[6] = {a, b, r[0], r[1], r[2], r[3]};
    run(p, "arith", N, args, 6);
    if (!build_only) {
        for (int j = 0; j < 4; j++) read_buf(r[j], sizeof R[j], R[j]);
        int bad[4] = {0};
        for (int i = 0; i < N; i++) {
            double x = h2d(A[i]), y = h2d(Bv[i]);
            /* Sums, differences and products of halves are exact in double; a double quotient
             * rounded to half is the correctly rounded half quotient (53 >= 2 * 11 + 2). */
            uint16_t want[4] = {d2h(x + y, RTE), d2h(x * y, RTE), d2h(x / y, RTE), d2h(x - y, RTE)};
            for (int j = 0; j < 4; j++) {
                uint16_t got = R[j][i];
                int ok = got == want[j] || (is_nan_bits(got) && is_nan_bits(want[j]));
                if (!ok && bad[j]++ < 3)
                    CHECK(0, "op %d of %#06x, %#06x: got %#06x, want %#06x", j, A[i], Bv[i], got, want[j]);
            }
        }
        CHECK(!bad[0] && !bad[1] && !bad[2] && !bad[3], "+ * / -: %d %d %d %d wrong", bad[0], bad[1], bad[2], bad[3]);
    }
    for (int j = 0; j < 4; j++) clReleaseMemObject(r[j]);

    /* fma: one rounding. Operands of exponent -4..3: the exact result fits a double. */
    srand(7);
    for (int i = 0; i < N; i++) {
        int s = rand();
        A[i] = (uint16_t)((s & 0x8000) | ((11 + (s >> 3) % 8) << 10) | (rand() & 0x3ff));
        Bv[i] = (uint16_t)((rand() & 0x8000) | ((11 + rand() % 8) << 10) | (rand() & 0x3ff));
        C[i] = (uint16_t)((rand() & 0x8000) | ((11 + rand() % 8) << 10) | (rand() & 0x3ff));
    }
    cl_mem c = buffer(sizeof C, C), fr = buffer(sizeof R[0], NULL), fr4 = buffer(sizeof R[1], NULL);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    a = buffer(sizeof A, A);
    b = buffer(sizeof Bv, Bv);
    cl_mem fargs[5] = {a, b, c, fr, fr4};
    run(p, "fmas", N, fargs, 5);
    if (!build_only) {
        read_buf(fr, sizeof R[0], R[0]);
        read_buf(fr4, sizeof R[1], R[1]);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            uint16_t want = d2h(h2d(A[i]) * h2d(Bv[i]) + h2d(C[i]), RTE);
            if ((R[0][i] != want || R[1][i] != want) && bad++ < 3)
                CHECK(0, "fma(%#06x, %#06x, %#06x): got %#06x / %#06x (half4), want %#06x", A[i], Bv[i], C[i], R[0][i],
                      R[1][i], want);
        }
        CHECK(bad == 0, "fma: %d wrong", bad);
    }
    /* A half kernel argument. */
    cl_int err;
    cl_kernel k = clCreateKernel(p, "scalar_arg", &err);
    cl_half s = 0x3e00; /* 1.5 */
    EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &fr), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof s, &s), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof(float), &s), CL_INVALID_ARG_SIZE);
    if (!build_only) {
        size_t one = 1;
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL), CL_SUCCESS);
        uint16_t got = 0;
        EXPECT(clEnqueueReadBuffer(q, fr, CL_TRUE, 0, 2, &got, 0, NULL, NULL), CL_SUCCESS);
        CHECK(got == 0x4200, "half argument 1.5 * 2: %#06x", got);
    }
    clReleaseKernel(k);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseMemObject(fr);
    clReleaseMemObject(fr4);
    clReleaseProgram(p);
}

/* ---- conversions ------------------------------------------------------------------------- */
static const char *CONV =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void from_float(global const float *f, global half *r) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[4 * i] = convert_half(f[i]); r[4 * i + 1] = convert_half_rtz(f[i]);\n"
    "  r[4 * i + 2] = convert_half_rtp(f[i]); r[4 * i + 3] = convert_half_rtn(f[i]);\n"
    "}\n"
    "kernel void from_int(global const int *v, global half *r) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[4 * i] = convert_half_rte(v[i]); r[4 * i + 1] = convert_half_rtz(v[i]);\n"
    "  r[4 * i + 2] = convert_half_rtp(v[i]); r[4 * i + 3] = convert_half_rtn(v[i]);\n"
    "}\n"
    "kernel void from_double(global const double *v, global half *r) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[4 * i] = convert_half(v[i]); r[4 * i + 1] = convert_half_rtz(v[i]);\n"
    "  r[4 * i + 2] = convert_half_rtp(v[i]); r[4 * i + 3] = convert_half_rtn(v[i]);\n"
    "}\n"
    "kernel void to_others(global const half *h, global float *f, global int *sat, global uchar *u) {\n"
    "  size_t i = get_global_id(0);\n"
    "  f[i] = convert_float(h[i]); sat[i] = convert_int_sat_rtz(h[i]); u[i] = convert_uchar_sat_rte(h[i]);\n"
    "}\n";

static float F[N];
static int I32[N];
static double D[N];
static uint16_t H4[4 * N];
static unsigned char U8[N];

static void check_rounded(const char *what, double (*value)(int), int n) {
    int bad = 0;
    static const char *modes[4] = {"rte", "rtz", "rtp", "rtn"};
    for (int i = 0; i < n; i++)
        for (int m = 0; m < 4; m++) {
            uint16_t want = d2h(value(i), m), got = H4[4 * i + m];
            if (got != want && !(is_nan_bits(got) && is_nan_bits(want)) && bad++ < 4)
                CHECK(0, "convert_half_%s(%s %.17g): got %#06x, want %#06x", modes[m], what, value(i), got, want);
        }
    CHECK(bad == 0, "conversions from %s: %d wrong", what, bad);
}
static double float_at(int i) { return F[i]; }
static double int_at(int i) { return I32[i]; }
static double double_at(int i) { return D[i]; }

static void test_conversions(void) {
    cl_program p = build(CONV, NULL);
    srand(11);
    for (int i = 0; i < N; i++) {
        uint32_t bits = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
        /* Around the half range mostly: exponents -30..20, plus any float. */
        if (i % 4) bits = (bits & 0x807fffff) | ((uint32_t)(127 - 30 + rand() % 51) << 23);
        memcpy(&F[i], &bits, 4);
        I32[i] = i < 200 ? 65504 + (i - 100) * 8 : (int)(((uint32_t)rand() << 16) ^ (uint32_t)rand()) >> (rand() % 31);
        D[i] = ldexp((double)(((uint64_t)rand() << 31) ^ (uint64_t)rand()) / 4611686018427387904.0, rand() % 50 - 30) *
               (rand() & 1 ? -1 : 1);
    }
    /* Edge cases: ties, the overflow boundary, subnormals, zero signs, infinities, NaN. */
    float edges[] = {65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e30f, -65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                     -0x1p-26f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0009765625f, 1.00048828125f, 2049.0f};
    for (unsigned i = 0; i < sizeof edges / sizeof *edges; i++) F[i] = edges[i];
    cl_mem r = buffer(sizeof H4, NULL);
    cl_mem f = buffer(sizeof F, F), iv = buffer(sizeof I32, I32), d = buffer(sizeof D, D);
    cl_mem a1[2] = {f, r};
    run(p, "from_float", N, a1, 2);
    if (!build_only) {
        read_buf(r, sizeof H4, H4);
        check_rounded("float", float_at, N);
    }
    cl_mem a2[2] = {iv, r};
    run(p, "from_int", N, a2, 2);
    if (!build_only) {
        read_buf(r, sizeof H4, H4);
        check_rounded("int", int_at, N);
    }
    cl_mem a3[2] = {d, r};
    run(p, "from_double", N, a3, 2);
    if (!build_only) {
        read_buf(r, sizeof H4, H4);
        check_rounded("double", double_at, N);
    }
    /* From half: every pattern to float exactly, to int saturated toward zero, to uchar. */
    for (int i = 0; i < N; i++) A[i] = (uint16_t)i;
    cl_mem h = buffer(sizeof A, A), sat = buffer(sizeof I32, NULL), u = buffer(sizeof U8, NULL);
    cl_mem a4[4] = {h, f, sat, u};
    run(p, "to_others", N, a4, 4);
    if (!build_only) {
        read_buf(f, sizeof F, F);
        read_buf(sat, sizeof I32, I32);
        read_buf(u, sizeof U8, U8);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            double x = h2d((uint16_t)i);
            int want_sat = isnan(x) ? 0 : x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? INT32_MIN : (int)trunc(x);
            double rn = nearbyint(x);
            int want_u = isnan(x) ? 0 : rn <= 0 ? 0 : rn >= 255 ? 255 : (int)rn;
            int ok = (F[i] == (float)x || (isnan(F[i]) && isnan(x))) && I32[i] == want_sat && U8[i] == want_u;
            if (!ok && bad++ < 3)
                CHECK(0, "half %#06x: float %g int_sat_rtz %d uchar_sat_rte %d (want %g %d %d)", i, F[i], I32[i], U8[i], x,
                      want_sat, want_u);
        }
        CHECK(bad == 0, "conversions from half: %d wrong", bad);
    }
    clReleaseMemObject(r);
    clReleaseMemObject(f);
    clReleaseMemObject(iv);
    clReleaseMemObject(d);
    clReleaseMemObject(h);
    clReleaseMemObject(sat);
    clReleaseMemObject(u);
    clReleaseProgram(p);
}

/* ---- math built-ins: every finite half, against double libm rounded to half ------------- */
static const char *MATH =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void math(global const half *x, global half *r) {\n"
    "  size_t i = get_global_id(0); half v = x[i];\n"
    "  r[8 * i] = sin(v); r[8 * i + 1] = exp(v); r[8 * i + 2] = log(v); r[8 * i + 3] = sqrt(v);\n"
    "  r[8 * i + 4] = pow(v, (half)1.5h); r[8 * i + 5] = tanh(v); r[8 * i + 6] = nextafter(v, (half)0.0h);\n"
    "  half ip; r[8 * i + 7] = fract(v, &ip);\n"
    "}\n";

static uint16_t M8[8 * N];

static double next_toward_zero(double x) {
    if (x == 0 || isnan(x)) return x;
    uint16_t h = d2h(x, RTE);
    return h2d(h - 1);
}
static double fract_ref(double x) {
    double f = x - floor(x);
    double below1 = h2d(0x3bff);
    return isinf(x) ? 0 : f < below1 ? f : below1;
}

static void test_math(void) {
    cl_program p = build(MATH, NULL);
    for (int i = 0; i < N; i++) A[i] = (uint16_t)i;
    cl_mem x = buffer(sizeof A, A), r = buffer(sizeof M8, NULL);
    cl_mem args[2] = {x, r};
    run(p, "math", N, args, 2);
    if (!build_only) {
        read_buf(r, sizeof M8, M8);
        static const char *names[8] = {"sin", "exp", "log", "sqrt", "pow(x, 1.5)", "tanh", "nextafter(x, 0)", "fract"};
        /* OpenCL C's half accuracy: sin, exp, log, pow, tanh 2 ulp, sqrt 1.5, the last two exact. */
        static const int tolerance[8] = {2, 2, 2, 1, 2, 2, 0, 0};
        int bad[8] = {0};
        for (int i = 0; i < N; i++) {
            double v = h2d((uint16_t)i);
            if (isnan(v)) continue;
            /* fract rounds x - floor(x) down to half (it is exact unless it would reach 1). */
            double f = fract_ref(v);
            uint16_t fr = d2h(f, RTE);
            if (fr == 0x3c00) fr = 0x3bff;
            uint16_t want[8] = {d2h(sin(v), RTE),  d2h(exp(v), RTE),  d2h(log(v), RTE),
                                d2h(sqrt(v), RTE), d2h(pow(v, 1.5), RTE), d2h(tanh(v), RTE),
                                d2h(next_toward_zero(v), RTE), v < 0 && f == 0 ? 0x0000 : fr};
            if (v == 0) want[6] = 0x0000; /* nextafter(±0, +0) is y */
            for (int j = 0; j < 8; j++) {
                uint16_t got = M8[8 * i + j];
                int ok = (is_nan_bits(got) && is_nan_bits(want[j])) ||
                         (!is_nan_bits(got) && !is_nan_bits(want[j]) &&
                          ((got & 0x7fff) == 0x7c00 || (want[j] & 0x7fff) == 0x7c00 ? got == want[j]
                                                                                    : ulps(got, want[j]) <= tolerance[j]));
                if (j == 7 && (got & 0x7fff) == (want[j] & 0x7fff)) ok = 1; /* fract(-0) may be ±0 */
                if (!ok && bad[j]++ < 3)
                    CHECK(0, "%s(%#06x = %g): got %#06x (%g), want %#06x (%g)", names[j], i, v, got, h2d(got), want[j],
                          h2d(want[j]));
            }
        }
        for (int j = 0; j < 8; j++) CHECK(bad[j] == 0, "%s: %d beyond %d ulp", names[j], bad[j], tolerance[j]);
    }
    clReleaseMemObject(x);
    clReleaseMemObject(r);
    clReleaseProgram(p);
}

/* ---- vectors, relational functions, vload/vstore, shuffle -------------------------------- */
static const char *VEC =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void vec(global half *h, global short *s, global int *n) {\n"
    "  half4 a = vload4(0, h), b = vload4(1, h);\n"
    "  vstore4(a * b + (half4)(1.0h), 2, h);\n"
    "  short4 eq = isequal(a, b), nan = isnan(a), lt = isless(a, b);\n"
    "  vstore4(eq, 0, s); vstore4(nan, 1, s); vstore4(lt, 2, s);\n"
    "  vstore4(shuffle(a, (ushort4)(3, 2, 1, 0)), 3, h);\n"
    "  vstore4(select(a, b, (short4)(-1, 0, -1, 0)), 4, h);\n"
    "  n[0] = isequal(h[0], h[4]); n[1] = isnan(h[1]); n[2] = signbit(h[2]);\n"
    "  h[20] = dot(a, b); h[21] = length(b.xy);\n"
    "}\n";

static void test_vectors(void) {
    cl_program p = build(VEC, NULL);
    /* a = (1, NaN, -2, 0.5), b = (1, 3, 4, 0.25) */
    uint16_t hv[24] = {0x3c00, 0x7e00, 0xc000, 0x3800, 0x3c00, 0x4200, 0x4400, 0x3400};
    short sv[12] = {0};
    int nv[3] = {0};
    cl_mem h = buffer(sizeof hv, hv), s = buffer(sizeof sv, NULL), n = buffer(sizeof nv, NULL);
    cl_mem args[3] = {h, s, n};
    run(p, "vec", 1, args, 3);
    if (!build_only) {
        read_buf(h, sizeof hv, hv);
        read_buf(s, sizeof sv, sv);
        read_buf(n, sizeof nv, nv);
        uint16_t fmav[4] = {0x4000, 0x7e00, 0xc700, 0x3c80}; /* 2, NaN, -7, 1.125 */
        for (int i = 0; i < 4; i++)
            CHECK(hv[8 + i] == fmav[i] || (i == 1 && is_nan_bits(hv[8 + i])), "a*b+1 [%d]: %#06x", i, hv[8 + i]);
        short want_s[12] = {-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0};
        for (int i = 0; i < 12; i++) CHECK(sv[i] == want_s[i], "relational lane %d: %d, want %d", i, sv[i], want_s[i]);
        uint16_t shuf[4] = {0x3800, 0xc000, 0x7e00, 0x3c00};
        for (int i = 0; i < 4; i++)
            CHECK(hv[12 + i] == shuf[i] || (i == 2 && is_nan_bits(hv[12 + i])), "shuffle [%d]: %#06x", i, hv[12 + i]);
        uint16_t sel[4] = {0x3c00, 0x7e00, 0x4400, 0x3800};
        for (int i = 0; i < 4; i++)
            CHECK(hv[16 + i] == sel[i] || (i == 1 && is_nan_bits(hv[16 + i])), "select [%d]: %#06x", i, hv[16 + i]);
        CHECK(nv[0] == 1 && nv[1] == 1 && nv[2] == 1, "scalar relational: %d %d %d", nv[0], nv[1], nv[2]);
        CHECK(is_nan_bits(hv[20]), "dot with a NaN: %#06x", hv[20]);
        CHECK(hv[21] == d2h(sqrt(1 + 9), RTE), "length((1, 3)): %#06x", hv[21]);
    }
    clReleaseMemObject(h);
    clReleaseMemObject(s);
    clReleaseMemObject(n);
    clReleaseProgram(p);
}

/* ---- images: write_imageh then read_imageh ------------------------------------------------ */
static const char *IMG =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void put(write_only image2d_t im, global const half4 *src) {\n"
    "  int x = get_global_id(0); write_imageh(im, (int2)(x, 0), src[x]);\n"
    "}\n"
    "kernel void get(read_only image2d_t im, global half4 *dst) {\n"
    "  int x = get_global_id(0); dst[x] = read_imageh(im, (int2)(x, 0));\n"
    "}\n";

static void test_images(void) {
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    if (!images) return;
    cl_program p = build(IMG, NULL);
    cl_image_format fmt = {CL_RGBA, CL_HALF_FLOAT};
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 64;
    desc.image_height = 1;
    cl_int err;
    cl_mem im = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK(err == CL_SUCCESS, "RGBA HALF_FLOAT image: %d", err);
    uint16_t src[256], dst[256] = {0};
    for (int i = 0; i < 256; i++) src[i] = (uint16_t)(i * 251 % 0x7c00);
    cl_mem s = buffer(sizeof src, src), d = buffer(sizeof dst, NULL);
    cl_kernel k = clCreateKernel(p, "put", &err);
    EXPECT(clSetKernelArg(k, 0, sizeof im, &im), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof s, &s), CL_SUCCESS);
    size_t n = 64;
    if (!build_only) EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
    clReleaseKernel(k);
    k = clCreateKernel(p, "get", &err);
    EXPECT(clSetKernelArg(k, 0, sizeof im, &im), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof d, &d), CL_SUCCESS);
    if (!build_only) {
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
        read_buf(d, sizeof dst, dst);
        int bad = 0;
        for (int i = 0; i < 256; i++) bad += dst[i] != src[i];
        CHECK(bad == 0, "write_imageh/read_imageh round trip: %d of 256 differ (first %#06x vs %#06x)", bad, dst[0],
              src[0]);
    }
    clReleaseKernel(k);
    clReleaseMemObject(im);
    clReleaseMemObject(s);
    clReleaseMemObject(d);
    clReleaseProgram(p);
}

/* ---- the device's answers ------------------------------------------------------------------ */
static int queries(void) {
    char ext[4096] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    if (!strstr(ext, "cl_khr_fp16")) {
        printf("no cl_khr_fp16\n");
        return 0;
    }
    cl_device_fp_config cfg = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_HALF_FP_CONFIG, sizeof cfg, &cfg, NULL), CL_SUCCESS);
    CHECK((cfg & CL_FP_INF_NAN) && (cfg & CL_FP_ROUND_TO_NEAREST), "CL_DEVICE_HALF_FP_CONFIG 0x%llx",
          (unsigned long long)cfg);
    cl_uint w = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, sizeof w, &w, NULL), CL_SUCCESS);
    CHECK(w > 0, "preferred half vector width %u", w);
    printf("half config 0x%llx, preferred half vector width %u\n", (unsigned long long)cfg, w);
    /* The OpenCL C 3.0 feature macro goes with the extension. */
    const char *src = "#ifndef __opencl_c_fp16\n#error no __opencl_c_fp16\n#endif\n"
                      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                      "kernel void k(global half *h) { h[0] = (half)1.0h; }\n";
    clReleaseProgram(build(src, "-cl-std=CL3.0"));
    return 1;
}

int main(int argc, char **argv) {
    build_only = argc > 1 && !strcmp(argv[1], "build");
    cl_platform_id plat = find_platform();
    dev = find_gpu(plat);
    if (!dev) {
        printf("no GPU\nFAIL\n");
        return 1;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (queries()) {
        test_arith();
        test_conversions();
        test_math();
        test_vectors();
        test_images();
    } else {
        checks_failed++;
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    int rc = report(build_only ? "fp16 build" : "fp16");
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
}
