/* Loops stepping by a run-time stride (grid-stride, work-group-stride) in every shape ptxgen's
 * chunked unrolling (ptxgen/bridge/stride_unroll.cpp) rewrites or must leave alone, checked
 * against the same loops run on the host, for trip counts 0 to many, starts past the end and
 * strides that do and do not divide the count. Integer sums, so every result is exact.
 * Runs unchanged on cudacl (default) and on another platform named by CL_PLATFORM_NAME. */
#include "common.h"
#include <stdint.h>

#define M 4096 /* elements of x */

static const char *SRC =
    "#define M 4096\n"
    /* the form: size_t index, ulong bound */
    "kernel void ul_sum(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0;\n"
    "  for (size_t i = get_global_id(0) + off; i < n; i += get_global_size(0)) acc += x[i];\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* signed int index and bound */
    "kernel void int_sum(global const long *x, global long *out, int n, uint off) {\n"
    "  long acc = 0;\n"
    "  for (int i = (int)get_global_id(0) + (int)off; i < n; i += (int)get_global_size(0)) acc += x[i];\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* an int or uint index stepped by the size_t global size: the step is 64-bit, the test on
     * its low 32 bits */
    "kernel void int_wide(global const long *x, global long *out, int n, uint off) {\n"
    "  long acc = 0;\n"
    "  for (int i = get_global_id(0) + off; i < n; i += get_global_size(0)) acc += x[i] * 3;\n"
    "  out[get_global_id(0)] = acc; }\n"
    "kernel void uint_wide(global const long *x, global long *out, int n, uint off) {\n"
    "  long acc = 0;\n"
    "  for (uint i = get_global_id(0) + off; i < (uint)n; i += get_global_size(0)) acc += x[i] - 1;\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* a do-while: the body runs once even when the start is past the bound */
    "kernel void dowhile(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0; size_t i = get_global_id(0) + off;\n"
    "  do { acc += x[i % M]; i += get_global_size(0); } while (i < n);\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* loop values that take each other's values (a phi of a phi) */
    "kernel void swap(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long a = 0, b = 1;\n"
    "  for (size_t i = get_global_id(0) + off; i < n; i += get_global_size(0)) { long t = a + x[i]; a = b; b = t; }\n"
    "  out[get_global_id(0)] = a * 3 + b; }\n"
    /* the index and the last loaded value used after the loop */
    "kernel void after(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long v = 7; size_t i;\n"
    "  for (i = get_global_id(0) + off; i < n; i += get_global_size(0)) v = x[i] * 5 - (long)i;\n"
    "  out[get_global_id(0)] = v * 100000 + (long)i; }\n"
    /* a work-group-stride loop */
    "kernel void lid_sum(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0;\n"
    "  for (int j = (int)get_local_id(0) + (int)off; j < (int)n; j += (int)get_local_size(0)) acc += x[j];\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* the bound on the left, and an exit test written as a negation */
    "kernel void reversed(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0; size_t i = get_global_id(0) + off;\n"
    "  if (n > i) do { acc ^= x[i] + (long)i; i += get_global_size(0); } while (!(i >= n));\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* a count pragma (LLVM unrolls it first, an exit test per copy), and unrolling switched off */
    "kernel void pragma2(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0;\n"
    "  #pragma unroll 2\n"
    "  for (size_t i = get_global_id(0) + off; i < n; i += get_global_size(0)) acc += x[i] * x[i];\n"
    "  out[get_global_id(0)] = acc; }\n"
    "kernel void nounroll(global const long *x, global long *out, ulong n, uint off) {\n"
    "  long acc = 0;\n"
    "  #pragma unroll 1\n"
    "  for (size_t i = get_global_id(0) + off; i < n; i += get_global_size(0)) acc -= x[i];\n"
    "  out[get_global_id(0)] = acc; }\n"
    /* a float maximum and a product of two arrays' loads (exact in double: small integers) */
    "kernel void maxdot(global const long *x, global long *out, ulong n, uint off) {\n"
    "  float m = -1e6f; double d = 0;\n"
    "  for (size_t i = get_global_id(0) + off; i < n; i += get_global_size(0)) {\n"
    "    m = fmax(m, (float)x[i]); d += (double)x[i] * (double)x[(i * 7) % M]; }\n"
    "  out[get_global_id(0)] = (long)m * 1000000000L + (long)d; }\n";

static const char *NAMES[] = {"ul_sum", "int_sum", "dowhile", "swap", "after", "lid_sum", "reversed",
                              "pragma2", "nounroll", "maxdot", "int_wide", "uint_wide"};
#define KERNELS (sizeof NAMES / sizeof *NAMES)

/* What kernel `k` gives work-item `g` of `gs` (groups of `ls`), on the host. */
static int64_t expected(unsigned k, const int64_t *x, size_t g, size_t gs, size_t ls, uint64_t n, unsigned off) {
    int64_t acc = 0;
    size_t start = g + off;
    switch (k) {
    case 0: case 7: case 8:
        for (size_t i = start; i < n; i += gs) acc += k == 0 ? x[i] : k == 7 ? x[i] * x[i] : -x[i];
        return acc;
    case 1:
        for (int i = (int)start; i < (int)n; i += (int)gs) acc += x[i];
        return acc;
    case 2: {
        size_t i = start;
        do { acc += x[i % M]; i += gs; } while (i < n);
        return acc;
    }
    case 3: {
        int64_t a = 0, b = 1;
        for (size_t i = start; i < n; i += gs) { int64_t t = a + x[i]; a = b; b = t; }
        return a * 3 + b;
    }
    case 4: {
        int64_t v = 7;
        size_t i;
        for (i = start; i < n; i += gs) v = x[i] * 5 - (int64_t)i;
        return v * 100000 + (int64_t)i;
    }
    case 5:
        for (int j = (int)(g % ls) + (int)off; j < (int)n; j += (int)ls) acc += x[j];
        return acc;
    case 6:
        for (size_t i = start; i < n; i += gs) acc ^= x[i] + (int64_t)i;
        return acc;
    case 10:
        for (int i = (int)start; i < (int)n; i += (int)gs) acc += x[i] * 3;
        return acc;
    case 11:
        for (unsigned i = (unsigned)start; i < (unsigned)n; i += (unsigned)gs) acc += x[i] - 1;
        return acc;
    default: {
        float m = -1e6f;
        double d = 0;
        for (size_t i = start; i < n; i += gs) { m = m > (float)x[i] ? m : (float)x[i]; d += (double)x[i] * (double)x[(i * 7) % M]; }
        return (int64_t)m * 1000000000LL + (int64_t)d;
    }
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    cl_platform_id plat = find_platform();
    cl_device_id dev = find_gpu(plat);
    if (!dev) { printf("no GPU\n"); return 2; }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        printf("build failed %d:\n%s\n", err, log);
        return 1;
    }
    int64_t *x = malloc(M * sizeof *x);
    for (size_t j = 0; j < M; j++) x[j] = (int64_t)((j * 2654435761u) % 1000) - 500;
    const size_t ls = 32, sizes[] = {32, 96, 320};
    size_t most = sizes[2];
    int64_t *out = malloc(most * sizeof *out);
    cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, M * sizeof *x, x, &err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, most * sizeof *out, NULL, &err);
    for (unsigned k = 0; k < KERNELS; k++) {
        cl_kernel kk = clCreateKernel(p, NAMES[k], &err);
        CHECK(err == CL_SUCCESS, "clCreateKernel(%s): %d", NAMES[k], err);
        int wrong = 0, runs = 0;
        for (unsigned s = 0; s < 3; s++) {
            size_t gs = sizes[s];
            /* trip counts 0, 1, 2, 3, 4, 5 and many, with and without a partial last round */
            uint64_t ns[] = {0, 1, gs - 1, gs, gs + 1, 2 * gs + 3, 3 * gs, 4 * gs - 1, 4 * gs, 4 * gs + 1,
                             5 * gs + 7, 8 * gs, 11 * gs + 1, M - 1, M};
            unsigned offs[] = {0, 5, (unsigned)(3 * gs)};
            for (unsigned a = 0; a < sizeof ns / sizeof *ns; a++)
                for (unsigned b = 0; b < 3; b++) {
                    uint64_t n = ns[a] > M ? M : ns[a];
                    unsigned off = offs[b];
                    int ni = (int)n;
                    clSetKernelArg(kk, 0, sizeof dx, &dx);
                    clSetKernelArg(kk, 1, sizeof dout, &dout);
                    if (k == 1 || k >= 10) clSetKernelArg(kk, 2, sizeof ni, &ni);
                    else clSetKernelArg(kk, 2, sizeof n, &n);
                    clSetKernelArg(kk, 3, sizeof off, &off);
                    err = clEnqueueNDRangeKernel(q, kk, 1, NULL, &gs, &ls, 0, NULL, NULL);
                    CHECK(err == CL_SUCCESS, "%s launch: %d", NAMES[k], err);
                    err = clEnqueueReadBuffer(q, dout, CL_TRUE, 0, gs * sizeof *out, out, 0, NULL, NULL);
                    CHECK(err == CL_SUCCESS, "%s read: %d", NAMES[k], err);
                    runs++;
                    for (size_t g = 0; g < gs; g++) {
                        int64_t want = expected(k, x, g, gs, ls, n, off);
                        if (out[g] != want && wrong++ < 3)
                            printf("  %s gs=%zu n=%llu off=%u item %zu: %lld, want %lld\n", NAMES[k], gs,
                                   (unsigned long long)n, off, g, (long long)out[g], (long long)want);
                    }
                }
        }
        CHECK(wrong == 0, "%s: %d wrong results in %d launches", NAMES[k], wrong, runs);
        clReleaseKernel(kk);
    }
    clReleaseMemObject(dx);
    clReleaseMemObject(dout);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(x);
    free(out);
    return report("stride_loops");
}
