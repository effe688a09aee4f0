/* CLBlast's tuned GEMM through an OpenCL platform (issue 12: cudacl's SGEMM >= NVIDIA's).
 *
 * Calls CLBlastSgemm and CLBlastDgemm (Debian's libclblast1, C API) for C = A * B, square,
 * row-major, N = 4096 by default; the first call compiles CLBlast's kernels and is timed apart;
 * then the median of REPS calls each followed by clFinish. 64 sampled elements of C are
 * checked against a CPU dot product (relative error <= 1e-3 for float, 1e-10 for double).
 * Prints "RESULT <key> <value> <unit> nv <ok>" lines for scripts/appbench-table.sh.
 * CLBlast picks its tuning parameters from its database by device name and architecture
 * (cl_nv_device_attribute_query); bench/cltrace.c (LD_PRELOAD) with CLTRACE=defines prints
 * what it picked.
 *
 * The platform is the one whose name contains $CL_PLATFORM_NAME ("cudacl" by default).
 * Build: cc -O2 -o clblast_sgemm bench/clblast_sgemm.c -I<clblast include> -L<dir> -l:libclblast.so.1 -lOpenCL -lm
 * Usage: ./clblast_sgemm [N]
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(2); } while (0)
#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) DIE("%s:%d: %s = %d", __FILE__, __LINE__, #call, e_); } while (0)
enum { REPS = 21, SAMPLES = 64 };

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static cl_context ctx;
static cl_command_queue q;
static int failures;

/* One precision: fills A and B, runs GEMM once (build) and REPS times, checks samples. */
static void run(int dbl, size_t n) {
    size_t es = dbl ? sizeof(double) : sizeof(float), bytes = n * n * es;
    void *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) DIE("out of host memory");
    srand(12345);
    for (size_t i = 0; i < n * n; i++) {
        double x = (rand() % 2001 - 1000) / 1000.0, y = (rand() % 2001 - 1000) / 1000.0;
        if (dbl) { ((double *)a)[i] = x; ((double *)b)[i] = y; }
        else { ((float *)a)[i] = (float)x; ((float *)b)[i] = (float)y; }
    }
    cl_int err;
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a, &err); CK(err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b, &err); CK(err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err); CK(err);
    CK(clFinish(q));
    double t[REPS];
    double first = 0;
    for (int r = -1; r < REPS; r++) {
        double t0 = now_ms();
        CLBlastStatusCode s = dbl
            ? CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0, da, 0, n, db, 0, n, 0.0, dc, 0, n, &q, NULL)
            : CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f, da, 0, n, db, 0, n, 0.0f, dc, 0, n, &q, NULL);
        if (s != CLBlastSuccess) DIE("CLBlast%sgemm = %d", dbl ? "D" : "S", (int)s);
        CK(clFinish(q));
        double ms = now_ms() - t0;
        if (r < 0) first = ms;
        else t[r] = ms;
    }
    qsort(t, REPS, sizeof *t, cmp_double);
    double ms = t[REPS / 2], tflops = 2.0 * n * n * n / (ms * 1e-3) / 1e12;
    CK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
    int ok = 1;
    double worst = 0;
    for (int k = 0; k < SAMPLES; k++) {
        size_t i = (size_t)rand() % n, j = (size_t)rand() % n;
        double ref = 0, mag = 0, got;
        for (size_t l = 0; l < n; l++) {
            double x = dbl ? ((double *)a)[i * n + l] : ((float *)a)[i * n + l];
            double y = dbl ? ((double *)b)[l * n + j] : ((float *)b)[l * n + j];
            ref += x * y;
            mag += fabs(x * y);
        }
        got = dbl ? ((double *)c)[i * n + j] : ((float *)c)[i * n + j];
        double rel = fabs(got - ref) / (mag > 0 ? mag : 1);
        if (!(rel <= (dbl ? 1e-10 : 1e-3))) ok = 0;
        if (rel > worst || rel != rel) worst = rel;
    }
    if (!ok) failures++;
    const char *p = dbl ? "dgemm" : "sgemm";
    printf("CLBlast%cgemm %zux%zux%zu: first call (builds) %.1f ms, median %.3f ms = %.2f TFLOPS, worst sampled rel. error %.2e %s\n",
           dbl ? 'D' : 'S', n, n, n, first, ms, tflops, worst, ok ? "ok" : "FAIL");
    printf("RESULT clblast.%s %.4f TF nv-higher %s\n", p, tflops, ok ? "ok" : "FAIL");
    printf("RESULT clblast.%s.first %.1f ms - %s\n", p, first, ok ? "ok" : "FAIL");
    /* The same product with CLBlast's temporary buffer allocated once (each call above creates
     * and releases one: for 4096^3 a 128 MiB buffer, a transpose of A into it, Xgemm, a
     * transpose back into C): what the allocation costs per call. Its C must equal the above. */
    size_t tsz = 0;
    CLBlastStatusCode s = dbl
        ? CLBlastDGemmTempBufferSize(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 0, n, 0, n, 0, n, &q, &tsz)
        : CLBlastSGemmTempBufferSize(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 0, n, 0, n, 0, n, &q, &tsz);
    if (s != CLBlastSuccess) DIE("CLBlast%cGemmTempBufferSize = %d", dbl ? 'D' : 'S', (int)s);
    cl_mem dt = clCreateBuffer(ctx, CL_MEM_READ_WRITE, tsz ? tsz : 1, NULL, &err); CK(err);
    CK(clEnqueueFillBuffer(q, dc, &(int){0}, sizeof(int), 0, bytes, 0, NULL, NULL));
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        s = dbl
            ? CLBlastDgemmWithTempBuffer(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0, da, 0, n, db, 0, n, 0.0, dc, 0, n, &q, NULL, dt)
            : CLBlastSgemmWithTempBuffer(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f, da, 0, n, db, 0, n, 0.0f, dc, 0, n, &q, NULL, dt);
        if (s != CLBlastSuccess) DIE("CLBlast%sgemmWithTempBuffer = %d", dbl ? "D" : "S", (int)s);
        CK(clFinish(q));
        t[r] = now_ms() - t0;
    }
    qsort(t, REPS, sizeof *t, cmp_double);
    double tms = t[REPS / 2], ttf = 2.0 * n * n * n / (tms * 1e-3) / 1e12;
    void *c2 = malloc(bytes);
    if (!c2) DIE("out of host memory");
    CK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c2, 0, NULL, NULL));
    int same = ok && !memcmp(c, c2, bytes);
    if (!same) failures++;
    printf("  with a temporary buffer of %zu MiB made once: median %.3f ms = %.2f TFLOPS, C %s\n", tsz >> 20, tms,
           ttf, same ? "identical ok" : "DIFFERENT (FAIL)");
    printf("RESULT clblast.%s.tmp %.4f TF nv-higher %s\n", p, ttf, same ? "ok" : "FAIL");
    clReleaseMemObject(dt); free(c2);
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc);
    free(a); free(b); free(c);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 4096;
    const char *want = getenv("CL_PLATFORM_NAME");
    if (!want) want = "cudacl";
    cl_platform_id ps[16];
    cl_uint np = 0;
    CK(clGetPlatformIDs(16, ps, &np));
    cl_platform_id plat = NULL;
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = {0};
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (strstr(name, want)) plat = ps[i];
    }
    if (!plat) DIE("no platform named like '%s'", want);
    cl_device_id dev;
    CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));
    char dname[256] = {0}, pname[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    printf("clblast_sgemm: %s / %s\n", pname, dname);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err); CK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err); CK(err);
    run(0, n);
    run(1, n);
    printf("%s\n", failures ? "SOME RESULTS WRONG" : "all results checked");
    return failures ? 1 : 0;
}
