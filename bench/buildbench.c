/* clBuildProgram time of a 6-kernel OpenCL C source, on cudacl or the platform named by
 * $CL_PLATFORM_NAME: the first build in this process, then the same source again in this process.
 * Run it twice with the same (initially empty) cache folders to see a new process's disk-cache
 * hit. Prints "build: first X ms, again Y ms (median of N)". A benchmark, not a test.
 * `buildbench --print-source` prints the source instead (scripts/stage-gpu.sh makes the PTX that
 * bench/jitbench.c times from it). */
#include "common.h"
#include <time.h>

static const char *SRC =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {\n"
    "  int i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }\n"
    "__kernel void saxpy(float alpha, __global const float *x, __global float *y, int n) {\n"
    "  int i = get_global_id(0); if (i < n) y[i] = fma(alpha, x[i], y[i]); }\n"
    "__kernel void reduce(__global const double *in, __global double *out, __local double *s, int n) {\n"
    "  int l = get_local_id(0), g = get_global_id(0); s[l] = g < n ? in[g] : 0.0;\n"
    "  for (int k = get_local_size(0) / 2; k > 0; k >>= 1) { barrier(CLK_LOCAL_MEM_FENCE); if (l < k) s[l] += s[l + k]; }\n"
    "  if (l == 0) out[get_group_id(0)] = s[0]; }\n"
    "__kernel void transpose(__global const float *in, __global float *out, int w, int h) {\n"
    "  __local float tile[16][17]; int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x < w && y < h) tile[get_local_id(1)][get_local_id(0)] = in[y * w + x];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int tx = get_group_id(1) * 16 + get_local_id(0), ty = get_group_id(0) * 16 + get_local_id(1);\n"
    "  if (tx < h && ty < w) out[ty * h + tx] = tile[get_local_id(0)][get_local_id(1)]; }\n"
    "__kernel void sgemm(__global const float *A, __global const float *B, __global float *C, int n,\n"
    "                    __local float *As, __local float *Bs) {\n"
    "  int tx = get_local_id(0), ty = get_local_id(1), r = get_global_id(1), c = get_global_id(0); float acc = 0;\n"
    "  for (int t = 0; t < n; t += 16) { As[ty * 16 + tx] = A[r * n + t + tx]; Bs[ty * 16 + tx] = B[(t + ty) * n + c];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE); for (int k = 0; k < 16; k++) acc += As[ty * 16 + k] * Bs[k * 16 + tx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "  C[r * n + c] = acc; }\n"
    "__kernel void histogram(__global const uchar *data, __global uint *bins, int n) {\n"
    "  __local uint h[256]; for (int i = get_local_id(0); i < 256; i += get_local_size(0)) h[i] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&h[data[i]]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int i = get_local_id(0); i < 256; i += get_local_size(0)) atomic_add(&bins[i], h[i]); }\n";

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double build_once(cl_context ctx, cl_device_id d) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    double t0 = now_ms();
    err = clBuildProgram(p, 1, &d, "", NULL, NULL);
    double t = now_ms() - t0;
    size_t nk = 0; /* CL_PROGRAM_NUM_KERNELS is a size_t */
    clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
    if (err != CL_SUCCESS || nk != 6) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("build failed: %d, %zu kernels\n%s\n", err, nk, log);
        exit(1);
    }
    clReleaseProgram(p);
    return t;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--print-source") == 0) {
        fputs(SRC, stdout);
        return 0;
    }
    cl_platform_id p = find_platform();
    cl_device_id d = find_gpu(p);
    if (!d) { printf("no device\n"); return 2; }
    char pv[256] = {0};
    clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof pv, pv, NULL);
    cl_int err;
    double t0 = now_ms();
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    double tctx = now_ms() - t0;
    double first = build_once(ctx, d);
    enum { N = 9 };
    double again[N];
    for (int i = 0; i < N; i++) again[i] = build_once(ctx, d);
    qsort(again, N, sizeof again[0], cmp);
    printf("%s: context %.1f ms; 6-kernel build: first %.2f ms, again %.3f ms (median of %d)\n", pv, tctx, first, again[N / 2], N);
    clReleaseContext(ctx);
    return 0;
}
