/* Times every kernel of an OpenCL C file that has the signature of bench/microbench.c's fp64 sum
 * reduction, (__global const double *in, __global double *out, __local double *s, ulong n), as a
 * grid-stride loop over n doubles in 1024 groups of 256, the shape issue 23 measured. Used to find
 * which form of the loop a compiler turns into a kernel at the memory's speed.
 *   reducevariants bench/reducevariants.cl [MiB (128)]    OCL_ICD_FILENAMES picks the platform
 * Prints, per kernel: median of 11 (event profiling), GB/s, and whether the sum is right; then
 * "wall": the host clock over WALL back-to-back launches and one clFinish, per launch (median of
 * 5 such batches), which does not depend on how a platform takes its profiling times.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "reducevariants: %s = %d (line %d)\n", #call, e_, __LINE__);           \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
#define REPS 11
#define WALL 50

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
#define GROUPS 1024
#define LOCAL 256

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    size_t mib = argc > 2 ? (size_t)atoi(argv[2]) : 128, n = (mib << 20) / sizeof(double);
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    rewind(f);
    char *src = malloc(len + 1);
    if (fread(src, 1, len, f) != len) return 2;
    src[len] = 0;
    fclose(f);
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CK(clGetPlatformIDs(1, &plat, NULL));
    CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char pname[128];
    CK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    cl_program p = clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &err);
    CK(err);
    if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "%s\n", log);
        return 2;
    }
    double *h = malloc(n * sizeof(double)), ref = 0;
    for (size_t i = 0; i < n; i++) ref += h[i] = (double)(i % 1000) * 0.5;
    cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(double), h, &err);
    CK(err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, GROUPS * sizeof(double), NULL, &err);
    CK(err);
    cl_kernel ks[32];
    cl_uint nk = 0;
    CK(clCreateKernelsInProgram(p, 32, ks, &nk));
    printf("reducevariants: %s, %zu MiB, %d groups of %d\n", pname, mib, GROUPS, LOCAL);
    int bad = 0;
    for (cl_uint k = 0; k < nk; k++) {
        char name[64];
        CK(clGetKernelInfo(ks[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
        cl_ulong nn = n;
        CK(clSetKernelArg(ks[k], 0, sizeof din, &din));
        CK(clSetKernelArg(ks[k], 1, sizeof dout, &dout));
        CK(clSetKernelArg(ks[k], 2, LOCAL * sizeof(double), NULL));
        CK(clSetKernelArg(ks[k], 3, sizeof nn, &nn));
        size_t g = GROUPS * LOCAL, l = LOCAL;
        double t[REPS];
        for (int r = -1; r < REPS; r++) {
            cl_event e;
            CK(clEnqueueNDRangeKernel(q, ks[k], 1, NULL, &g, &l, 0, NULL, &e));
            CK(clWaitForEvents(1, &e));
            cl_ulong t0, t1;
            CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
            CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
            if (r >= 0) t[r] = (t1 - t0) * 1e-6;
            clReleaseEvent(e);
        }
        double w[5];
        for (int r = 0; r < 5; r++) {
            double t0 = now_ms();
            for (int i = 0; i < WALL; i++) CK(clEnqueueNDRangeKernel(q, ks[k], 1, NULL, &g, &l, 0, NULL, NULL));
            CK(clFinish(q));
            w[r] = (now_ms() - t0) / WALL;
        }
        qsort(w, 5, sizeof w[0], cmp);
        double part[GROUPS], got = 0;
        CK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, sizeof part, part, 0, NULL, NULL));
        for (int i = 0; i < GROUPS; i++) got += part[i];
        qsort(t, REPS, sizeof t[0], cmp);
        int ok = fabs(got - ref) <= 1e-9 * fabs(ref);
        bad |= !ok;
        printf("%-16s %8.4f ms %8.1f GB/s %s wall %8.4f ms %8.1f GB/s\n", name, t[REPS / 2],
               n * sizeof(double) / (t[REPS / 2] * 1e6), ok ? "ok" : "WRONG", w[2], n * sizeof(double) / (w[2] * 1e6));
    }
    return bad;
}
