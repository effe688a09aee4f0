/* cudacl micro-benchmark (not a test): kernel launch overhead, SGEMM 2048 (naive and 16x16
 * tiled with __local arguments) and an fp64 reduction with __local arguments, each result
 * checked against a CPU reference; median times; one table.
 *
 * The platform is the one whose name contains $CL_PLATFORM_NAME ("cudacl" by default), so the
 * same binary measures NVIDIA's OpenCL for comparison: CL_PLATFORM_NAME=NVIDIA ./microbench
 *
 * Build: cc -O2 -o microbench bench/microbench.c -lOpenCL -lm
 * Usage: ./microbench [sgemm_n (2048)] [reduction_mib (256)]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(2); } while (0)
#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) DIE("%s:%d: %s = %d", __FILE__, __LINE__, #call, e_); } while (0)

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q, qprof;
static int failures;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void row(const char *name, double value, const char *unit, const char *extra, int ok) {
    printf("| %-38s | %12.3f %-6s | %-28s | %-4s |\n", name, value, unit, extra, ok ? "ok" : "FAIL");
    if (!ok) failures++;
}

static cl_program build(const char *src) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    double t0 = now_us();
    err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    double t1 = now_us();
    if (err != CL_SUCCESS) {
        char log[16384] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        DIE("build failed (%d):\n%s", err, log);
    }
    row("clBuildProgram (this process)", (t1 - t0) / 1000.0, "ms", "", 1);
    return p;
}

/* Kernel time in ms from the profiling event. */
static double event_ms(cl_event e) {
    cl_ulong a = 0, b = 0;
    CK(clWaitForEvents(1, &e));
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    clReleaseEvent(e);
    return (double)(b - a) / 1e6;
}

static const char *SRC =
    "__kernel void empty(void) {}\n"
    "__kernel void sgemm_naive(const int N, __global const float *A, __global const float *B, __global float *C) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < N; k++) acc += A[row * N + k] * B[k * N + col];\n"
    "  C[row * N + col] = acc;\n"
    "}\n"
    "#define TS 16\n"
    "__kernel void sgemm_tiled(const int N, __global const float *A, __global const float *B, __global float *C,\n"
    "                          __local float *As, __local float *Bs) {\n"
    "  int tx = get_local_id(0), ty = get_local_id(1);\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int t = 0; t < N; t += TS) {\n"
    "    As[ty * TS + tx] = A[row * N + t + tx];\n"
    "    Bs[ty * TS + tx] = B[(t + ty) * N + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < TS; k++) acc += As[ty * TS + k] * Bs[k * TS + tx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  C[row * N + col] = acc;\n"
    "}\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void reduce_f64(__global const double *in, __global double *out, __local double *s, const ulong n) {\n"
    "  size_t l = get_local_id(0), gs = get_global_size(0);\n"
    "  double acc = 0.0;\n"
    "  for (size_t i = get_global_id(0); i < n; i += gs) acc += in[i];\n"
    "  s[l] = acc;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) {\n"
    "    if (l < k) s[l] += s[l + k];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = s[0];\n"
    "}\n";

static void bench_launch(cl_program p) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, "empty", &err);
    CK(err);
    size_t g = 32, l = 32;
    for (int i = 0; i < 100; i++) CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    CK(clFinish(q));
    enum { LAUNCHES = 10000, REPS = 7 };
    double enq[REPS], thr[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++) CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        double t1 = now_us();
        CK(clFinish(q));
        double t2 = now_us();
        enq[r] = (t1 - t0) / LAUNCHES;
        thr[r] = (t2 - t0) / LAUNCHES;
    }
    row("empty kernel: enqueue call", median(enq, REPS), "us", "10000 launches, median of 7", 1);
    row("empty kernel: async launch (thruput)", median(thr, REPS), "us", "incl. final clFinish", 1);
    enum { SYNC = 2000 };
    static double one[SYNC];
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        CK(clFinish(q));
        one[i] = now_us() - t0;
    }
    row("empty kernel: launch + clFinish", median(one, SYNC), "us", "median of 2000", 1);
    clReleaseKernel(k);
}

/* C[i][j] in double on the CPU. */
static double ref_entry(const float *A, const float *B, int n, int i, int j) {
    double acc = 0;
    for (int k = 0; k < n; k++) acc += (double)A[(size_t)i * n + k] * B[(size_t)k * n + j];
    return acc;
}

static void bench_sgemm(cl_program p, int n) {
    cl_int err;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    srand(1);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        A[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
        B[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
    }
    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, A, &err); CK(err);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, B, &err); CK(err);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err); CK(err);
    const char *names[2] = {"sgemm_naive", "sgemm_tiled"};
    for (int v = 0; v < 2; v++) {
        cl_kernel k = clCreateKernel(p, names[v], &err);
        CK(err);
        CK(clSetKernelArg(k, 0, sizeof n, &n));
        CK(clSetKernelArg(k, 1, sizeof dA, &dA));
        CK(clSetKernelArg(k, 2, sizeof dB, &dB));
        CK(clSetKernelArg(k, 3, sizeof dC, &dC));
        if (v == 1) {
            CK(clSetKernelArg(k, 4, 16 * 16 * sizeof(float), NULL));
            CK(clSetKernelArg(k, 5, 16 * 16 * sizeof(float), NULL));
        }
        size_t g[2] = {(size_t)n, (size_t)n}, l[2] = {16, 16};
        enum { REPS = 10 };
        double t[REPS];
        cl_event e;
        CK(clEnqueueNDRangeKernel(qprof, k, 2, NULL, g, l, 0, NULL, &e)); /* warm-up */
        event_ms(e);
        for (int r = 0; r < REPS; r++) {
            CK(clEnqueueNDRangeKernel(qprof, k, 2, NULL, g, l, 0, NULL, &e));
            t[r] = event_ms(e);
        }
        memset(C, 0, bytes);
        CK(clEnqueueReadBuffer(qprof, dC, CL_TRUE, 0, bytes, C, 0, NULL, NULL));
        /* 512 sampled entries against a double-precision CPU reference. */
        int bad = 0;
        double maxerr = 0;
        for (int s = 0; s < 512; s++) {
            int i = (int)(((unsigned)s * 2654435761u) % (unsigned)n), j = (int)(((unsigned)s * 40503u + 17u) % (unsigned)n);
            if (s == 0) i = j = 0;
            if (s == 1) i = j = n - 1;
            double ref = ref_entry(A, B, n, i, j), got = C[(size_t)i * n + j];
            double err_ = fabs(ref - got);
            if (err_ > maxerr) maxerr = err_;
            if (err_ > 1e-3 * sqrt((double)n) + 1e-4 * fabs(ref)) bad++;
        }
        double ms = median(t, REPS);
        char extra[64];
        snprintf(extra, sizeof extra, "%.0f GFLOP/s, max err %.1e", 2.0 * n * n * (double)n / (ms * 1e6), maxerr);
        char name[64];
        snprintf(name, sizeof name, "%s %d (kernel)", v ? "SGEMM 16x16 tiled __local" : "SGEMM naive", n);
        row(name, ms, "ms", extra, bad == 0);
        clReleaseKernel(k);
    }
    clReleaseMemObject(dA); clReleaseMemObject(dB); clReleaseMemObject(dC);
    free(A); free(B); free(C);
}

static void bench_reduce(cl_program p, size_t mib) {
    cl_int err;
    size_t n = mib * 1024 * 1024 / sizeof(double);
    double *h = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) h[i] = (double)((i * 7919) % 1000) * 0.001 - 0.25;
    double ref = 0;
    for (size_t i = 0; i < n; i++) ref += h[i];
    cl_uint cus = 1;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    size_t local = 256, groups = (size_t)cus * 8, global = groups * local;
    cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(double), h, &err); CK(err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, groups * sizeof(double), NULL, &err); CK(err);
    cl_kernel k = clCreateKernel(p, "reduce_f64", &err);
    CK(err);
    cl_ulong nn = n;
    CK(clSetKernelArg(k, 0, sizeof din, &din));
    CK(clSetKernelArg(k, 1, sizeof dout, &dout));
    CK(clSetKernelArg(k, 2, local * sizeof(double), NULL));
    CK(clSetKernelArg(k, 3, sizeof nn, &nn));
    enum { REPS = 10 };
    double t[REPS];
    cl_event e;
    CK(clEnqueueNDRangeKernel(qprof, k, 1, NULL, &global, &local, 0, NULL, &e));
    event_ms(e);
    for (int r = 0; r < REPS; r++) {
        CK(clEnqueueNDRangeKernel(qprof, k, 1, NULL, &global, &local, 0, NULL, &e));
        t[r] = event_ms(e);
    }
    double *part = malloc(groups * sizeof(double));
    CK(clEnqueueReadBuffer(qprof, dout, CL_TRUE, 0, groups * sizeof(double), part, 0, NULL, NULL));
    double got = 0;
    for (size_t g = 0; g < groups; g++) got += part[g];
    double ms = median(t, REPS);
    char extra[64];
    snprintf(extra, sizeof extra, "%.0f GB/s, rel err %.1e", n * sizeof(double) / (ms * 1e6), fabs(got - ref) / fabs(ref));
    char name[64];
    snprintf(name, sizeof name, "fp64 reduction %zu MiB (kernel)", mib);
    row(name, ms, "ms", extra, fabs(got - ref) <= 1e-9 * fabs(ref) + 1e-6);
    clReleaseKernel(k);
    clReleaseMemObject(din); clReleaseMemObject(dout);
    free(h); free(part);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    size_t mib = argc > 2 ? (size_t)atoi(argv[2]) : 256;
    if (n < 16 || n % 16) DIE("sgemm size must be a multiple of 16");
    const char *want = getenv("CL_PLATFORM_NAME");
    if (!want || !*want) want = "cudacl";
    cl_platform_id ps[16], plat = NULL;
    cl_uint np = 0;
    CK(clGetPlatformIDs(16, ps, &np));
    char pname[256] = {0};
    for (cl_uint i = 0; i < np && i < 16; i++) {
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (strstr(pname, want)) { plat = ps[i]; break; }
    }
    if (!plat) DIE("no platform named like '%s'", want);
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
        CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char dname[256] = {0}, pver[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CK(err);
    qprof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    printf("microbench: %s (%s) on %s\n\n", pname, pver, dname);
    printf("| %-38s | %19s | %-28s | %-4s |\n", "benchmark", "median", "", "check");
    printf("|%s|%s|%s|%s|\n", "----------------------------------------", "---------------------", "------------------------------", "------");
    cl_program p = build(SRC);
    bench_launch(p);
    bench_sgemm(p, n);
    bench_reduce(p, mib);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(qprof);
    clReleaseContext(ctx);
    printf("\n%s\n", failures ? "SOME RESULTS WRONG" : "all results checked");
    return failures ? 1 : 0;
}
