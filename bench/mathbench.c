/* Throughput of OpenCL C's math built-ins (issue 23: a kernel that spends its time in exp, pow or
 * sin runs at the speed of the compiler's implementation of them, which differ: libclc's on cudacl,
 * NVIDIA's own on NVIDIA's OpenCL). One kernel per built-in: every work-item calls it ITERS times
 * on a changing argument and sums the results; kernel time from profiling events, median of
 * REPS, as G calls/s. Each sum is checked for a sample of work-items against the same loop in
 * double on the host (relative error bound per row: the built-in's error grows through the sum
 * only as the sum of the errors).
 *   mathbench [work-items: a power of two (1<<22)]     OCL_ICD_FILENAMES / CL_PLATFORM_NAME pick the platform
 * Prints one row per built-in: name, G calls/s, max relative error of the sample, ok/FAIL.
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERS 64
#define REPS 5
#define SAMPLE 512

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(2); } while (0)
#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) DIE("%s:%d: %s = %d", __FILE__, __LINE__, #call, e_); } while (0)

/* One built-in: its OpenCL C call on v (and w), the host's double version, the argument range,
   the relative error bound of the sum; fp64 rows need cl_khr_fp64. */
typedef struct {
    const char *name, *call;
    double (*ref)(double, double);
    double lo, hi, tol;
    int fp64;
} fn;

static double r_sqrt(double v, double w) { (void)w; return sqrt(v); }
static double r_rsqrt(double v, double w) { (void)w; return 1 / sqrt(v); }
static double r_cbrt(double v, double w) { (void)w; return cbrt(v); }
static double r_exp(double v, double w) { (void)w; return exp(v); }
static double r_exp2(double v, double w) { (void)w; return exp2(v); }
static double r_exp10(double v, double w) { (void)w; return pow(10, v); }
static double r_expm1(double v, double w) { (void)w; return expm1(v); }
static double r_log(double v, double w) { (void)w; return log(v); }
static double r_log2(double v, double w) { (void)w; return log2(v); }
static double r_log10(double v, double w) { (void)w; return log10(v); }
static double r_log1p(double v, double w) { (void)w; return log1p(v); }
static double r_pow(double v, double w) { return pow(v, w); }
static double r_sin(double v, double w) { (void)w; return sin(v); }
static double r_cos(double v, double w) { (void)w; return cos(v); }
static double r_tan(double v, double w) { (void)w; return tan(v); }
static double r_asin(double v, double w) { (void)w; return asin(v); }
static double r_acos(double v, double w) { (void)w; return acos(v); }
static double r_atan(double v, double w) { (void)w; return atan(v); }
static double r_atan2(double v, double w) { return atan2(v, w); }
static double r_sinh(double v, double w) { (void)w; return sinh(v); }
static double r_cosh(double v, double w) { (void)w; return cosh(v); }
static double r_tanh(double v, double w) { (void)w; return tanh(v); }
static double r_erf(double v, double w) { (void)w; return erf(v); }
static double r_erfc(double v, double w) { (void)w; return erfc(v); }
static double r_hypot(double v, double w) { return hypot(v, w); }
static double r_div(double v, double w) { return v / w; }
static double r_fma(double v, double w) { return v * w + 0.5; }

/* v runs over [lo, hi) across work-items and iterations; w over [1, 3) (pow: [-2, 2)) */
static const fn FNS[] = {
    {"sqrt", "sqrt(v)", r_sqrt, 0.5, 1000, 1e-6, 0},
    {"rsqrt", "rsqrt(v)", r_rsqrt, 0.5, 1000, 1e-6, 0},
    {"cbrt", "cbrt(v)", r_cbrt, 0.5, 1000, 1e-6, 0},
    {"exp", "exp(v)", r_exp, -20, 20, 1e-6, 0},
    {"exp2", "exp2(v)", r_exp2, -20, 20, 1e-6, 0},
    {"exp10", "exp10(v)", r_exp10, -8, 8, 1e-6, 0},
    {"expm1", "expm1(v)", r_expm1, -5, 5, 1e-6, 0},
    {"log", "log(v)", r_log, 0.01, 1000, 1e-6, 0},
    {"log2", "log2(v)", r_log2, 0.01, 1000, 1e-6, 0},
    {"log10", "log10(v)", r_log10, 0.01, 1000, 1e-6, 0},
    {"log1p", "log1p(v)", r_log1p, 0, 100, 1e-6, 0},
    {"pow", "pow(v, w)", r_pow, 0.1, 10, 1e-5, 0},
    {"sin", "sin(v)", r_sin, -100, 100, 1e-5, 0},
    {"cos", "cos(v)", r_cos, -100, 100, 1e-5, 0},
    {"tan", "tan(v)", r_tan, -1.5, 1.5, 1e-5, 0},
    {"asin", "asin(v)", r_asin, -0.99, 0.99, 1e-6, 0},
    {"acos", "acos(v)", r_acos, -0.99, 0.99, 1e-6, 0},
    {"atan", "atan(v)", r_atan, -100, 100, 1e-6, 0},
    {"atan2", "atan2(v, w)", r_atan2, -100, 100, 1e-6, 0},
    {"sinh", "sinh(v)", r_sinh, -10, 10, 1e-6, 0},
    {"cosh", "cosh(v)", r_cosh, -10, 10, 1e-6, 0},
    {"tanh", "tanh(v)", r_tanh, -10, 10, 1e-6, 0},
    {"erf", "erf(v)", r_erf, -3, 3, 1e-6, 0},
    {"erfc", "erfc(v)", r_erfc, -2, 4, 1e-6, 0},
    {"hypot", "hypot(v, w)", r_hypot, -100, 100, 1e-6, 0},
    {"divide", "v / w", r_div, -100, 100, 1e-6, 0},
    {"mul-add", "v * w + 0.5f", r_fma, -100, 100, 1e-6, 0},
    {"native_exp", "native_exp(v)", r_exp, -20, 20, 1e-3, 0},
    {"native_log", "native_log(v)", r_log, 0.01, 1000, 1e-3, 0},
    {"native_sin", "native_sin(v)", r_sin, -3, 3, 1e-3, 0},
    {"native_sqrt", "native_sqrt(v)", r_sqrt, 0.5, 1000, 1e-3, 0},
    {"native_divide", "native_divide(v, w)", r_div, -100, 100, 1e-3, 0},
    {"sqrt fp64", "sqrt(v)", r_sqrt, 0.5, 1000, 1e-12, 1},
    {"exp fp64", "exp(v)", r_exp, -20, 20, 1e-12, 1},
    {"log fp64", "log(v)", r_log, 0.01, 1000, 1e-12, 1},
    {"pow fp64", "pow(v, w)", r_pow, 0.1, 10, 1e-12, 1},
    {"sin fp64", "sin(v)", r_sin, -100, 100, 1e-12, 1},
    {"divide fp64", "v / w", r_div, -100, 100, 1e-12, 1},
};
#define NFNS (int)(sizeof FNS / sizeof FNS[0])

/* The argument of call k of work-item i: the same formula on host and device (in float for the
   float rows, so both see the same arguments). */
#define ARG_V(T, lo, hi, i, k, n) ((T)(lo) + ((T)(hi) - (T)(lo)) * ((T)(((i) * 61u + (k) * 40503u) & ((n) - 1u)) * ((T)1 / (T)(n))))
#define ARG_W(T, i, k, pw) ((pw) ? (T)-2 + (T)4 * ((T)(((i) + (k) * 7u) & 1023u) * (T)0.0009765625) : (T)1 + (T)2 * ((T)(((i) + (k) * 7u) & 1023u) * (T)0.0009765625))

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : (size_t)1 << 22;
    if (n < SAMPLE || (n & (n - 1))) DIE("work-items: a power of two >= %d", SAMPLE);
    cl_platform_id plats[8];
    cl_uint np = 0;
    CK(clGetPlatformIDs(8, plats, &np));
    const char *want = getenv("CL_PLATFORM_NAME");
    cl_platform_id plat = NULL;
    char pname[128] = "";
    for (cl_uint i = 0; i < np && !plat; i++) {
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (!want || strstr(pname, want)) plat = plats[i];
    }
    if (!plat) DIE("no platform named %s", want ? want : "(any)");
    cl_device_id dev;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char ext[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    int fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(double), NULL, &err);
    CK(err);
    double *res = malloc(n * sizeof(double));
    int failures = 0;
    printf("mathbench: %s, %zu work-items x %d calls, G calls/s (median of %d)\n", pname, n, ITERS, REPS);
    for (int f = 0; f < NFNS; f++) {
        const fn *F = &FNS[f];
        if (F->fp64 && !fp64) continue;
        const char *T = F->fp64 ? "double" : "float";
        int pw = !strcmp(F->call, "pow(v, w)");
        char src[2048];
        snprintf(src, sizeof src,
                 "%s#define ARG_V(T, lo, hi, i, k, n) ((T)(lo) + ((T)(hi) - (T)(lo)) * ((T)(((i) * 61u + (k) * 40503u) & ((n) - 1u)) * ((T)1 / (T)(n))))\n"
                 "#define ARG_W(T, i, k, pw) ((pw) ? (T)-2 + (T)4 * ((T)(((i) + (k) * 7u) & 1023u) * (T)0.0009765625) : (T)1 + (T)2 * ((T)(((i) + (k) * 7u) & 1023u) * (T)0.0009765625))\n"
                 "__kernel void bench(__global %s *out, uint n) {\n"
                 "  uint i = get_global_id(0);\n"
                 "  %s acc = 0;\n"
                 "  for (uint k = 0; k < %d; k++) {\n"
                 "    %s v = ARG_V(%s, %.17g, %.17g, i, k, n), w = ARG_W(%s, i, k, %d);\n"
                 "    acc += %s;\n"
                 "  }\n"
                 "  out[i] = acc;\n"
                 "}\n",
                 F->fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "", T, T, ITERS, T, T, F->lo, F->hi, T, pw,
                 F->call);
        const char *s = src;
        cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
        CK(err);
        if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
            char log[8192] = "";
            clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
            printf("mathbench: %-18s build failed: %.200s\n", F->name, log);
            failures++;
            continue;
        }
        cl_kernel k = clCreateKernel(p, "bench", &err);
        CK(err);
        cl_uint nn = (cl_uint)n;
        CK(clSetKernelArg(k, 0, sizeof out, &out));
        CK(clSetKernelArg(k, 1, sizeof nn, &nn));
        double t[REPS];
        size_t l = 256;
        for (int r = -1; r < REPS; r++) {
            cl_event e;
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &l, 0, NULL, &e));
            CK(clWaitForEvents(1, &e));
            cl_ulong a = 0, b = 0;
            CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
            CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
            clReleaseEvent(e);
            if (r >= 0) t[r] = (double)(b - a) * 1e-9;
        }
        qsort(t, REPS, sizeof t[0], cmp_double);
        size_t esz = F->fp64 ? sizeof(double) : sizeof(float);
        CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * esz, res, 0, NULL, NULL));
        double worst = 0;
        for (int j = 0; j < SAMPLE; j++) {
            size_t i = (size_t)j * (n / SAMPLE);
            double want_sum = 0, abs_sum = 0;
            for (unsigned kk = 0; kk < ITERS; kk++) {
                double v, w;
                if (F->fp64) {
                    v = ARG_V(double, F->lo, F->hi, (unsigned)i, kk, (unsigned)n);
                    w = ARG_W(double, (unsigned)i, kk, pw);
                } else {
                    v = ARG_V(float, F->lo, F->hi, (unsigned)i, kk, (unsigned)n);
                    w = ARG_W(float, (unsigned)i, kk, pw);
                }
                double y = F->ref(v, w);
                if (!strcmp(F->name, "mul-add")) y = (float)v * (float)w + 0.5;
                want_sum += y;
                abs_sum += fabs(y);
            }
            double got = F->fp64 ? res[i] : (double)((float *)res)[i];
            double e = fabs(got - want_sum) / (abs_sum > 0 ? abs_sum : 1);
            if (!(e <= worst)) worst = e; /* NaN counts as worst */
        }
        int ok = worst <= F->tol * 4 + (F->fp64 ? 0 : ITERS * 6e-8);
        if (!ok) failures++;
        printf("mathbench: %-18s %10.2f  err %.2e  %s\n", F->name, (double)n * ITERS / t[REPS / 2] / 1e9, worst,
               ok ? "ok" : "FAIL");
        clReleaseKernel(k);
        clReleaseProgram(p);
    }
    free(res);
    return failures ? 1 : 0;
}
