/*
 * imagebench: image read and write bandwidth on one OpenCL platform, every result checked
 * against a CPU reference.
 *
 *   imagebench [PLATFORM-SUBSTRING] > out.txt     run (default: the first platform with a GPU)
 *   imagebench --table cudacl.txt nvidia.txt       the two runs side by side, ratio last
 *   IMAGEBENCH_ONLY=read,write,filter,transfer     only those groups of tests
 *
 * Run it once per platform (select one with OCL_ICD_FILENAMES / OCL_ICD_VENDORS), then --table.
 * Each run prints one line per test: "R name ms GB/s ok|FAIL detail". GB/s counts the bytes a
 * test must move at least (image bytes read + bytes written), over the best of REPS timed runs
 * (wall clock around enqueue + clFinish, after one warm-up run). Images are 4096x4096; kernels
 * use a 16x16 work-group on both platforms. The process exits 1 when a check fails.
 *
 * Tests:
 *   read_rgba8_sampler / read_rgba32f_sampler    read_imagef(img, nearest unnormalized
 *                                                CLAMP_TO_EDGE sampler, float2 centre coords)
 *   read_rgba8_nosampler / read_rgba32f_nosampler read_imagef(img, int2)
 *   (each writes one float per pixel, the sum of the 4 channels, to a buffer)
 *   write_rgba8 / write_rgba32f                   write_imagef of a value made from (x, y)
 *                                                by three float divisions (x / 255.0f: OpenCL
 *                                                allows 2.5 ulp, the check too)
 *   write_rgba8_mul / write_rgba32f_mul           the same values by multiplication (x * (1 /
 *                                                255.0f)): the store alone, without the
 *                                                compiler's division
 *   filter3x3_rgba8                               3x3 weighted filter, RGBA8 in (sampler,
 *                                                CLAMP_TO_EDGE), RGBA8 out (write_imagef)
 *   filter3x3_rgba32f, filter3x3_rgba8_to_32f     the same, RGBA32F in and out, RGBA8 in and
 *                                                RGBA32F out (GB/s: image bytes read + written)
 *   read_strided16_rgba32f                        clpeak's image bandwidth method (upstream
 *                                                clpeak; Debian 12's 1.1.2 has no image test):
 *                                                an RGBA float image, 1-D work-groups of the
 *                                                device's largest size, each work-item 16
 *                                                read_imagef with int coordinates through a
 *                                                constant CLAMP_TO_EDGE nearest sampler, the
 *                                                i-th at pixel gid + i * global size (row
 *                                                order, shifts by run-time log2 sizes), the sum
 *                                                to a buffer: every pixel read once
 *   write_image_64MiB / read_image_64MiB          clEnqueueWriteImage / ReadImage, blocking,
 *                                                of a 4096x4096 RGBA8 image from/to malloc'd memory
 */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 4096
#define H 4096
#define REPS 10

static int failures;

/* IMAGEBENCH_ONLY=read,transfer runs only the groups named (read, write, filter, transfer). */
static int group_wanted(const char *group) {
    const char *only = getenv("IMAGEBENCH_ONLY");
    return !only || strstr(only, group) != NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(x)                                                                              \
    do {                                                                                   \
        cl_int e_ = (x);                                                                   \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "imagebench: %s failed: %d (line %d)\n", #x, e_, __LINE__);   \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

static const char *SRC =
    "__kernel void read_s(read_only image2d_t im, sampler_t s, __global float *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 p = read_imagef(im, s, (float2)(x + 0.5f, y + 0.5f));\n"
    "  out[y * get_image_width(im) + x] = (p.x + p.y) + (p.z + p.w);\n"
    "}\n"
    "__kernel void read_n(read_only image2d_t im, __global float *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 p = read_imagef(im, (int2)(x, y));\n"
    "  out[y * get_image_width(im) + x] = (p.x + p.y) + (p.z + p.w);\n"
    "}\n"
    "__kernel void write_f(write_only image2d_t im) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 v = (float4)((x & 255) / 255.0f, (y & 255) / 255.0f, ((x + y) & 255) / 255.0f, 1.0f);\n"
    "  write_imagef(im, (int2)(x, y), v);\n"
    "}\n"
    "__kernel void write_m(write_only image2d_t im) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  const float k = 1.0f / 255.0f;\n"
    "  float4 v = (float4)((x & 255) * k, (y & 255) * k, ((x + y) & 255) * k, 1.0f);\n"
    "  write_imagef(im, (int2)(x, y), v);\n"
    "}\n"
    "__kernel void read16(read_only image2d_t im, __global float *out, int logw) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int gid = (int)get_global_id(0), n = (int)get_global_size(0);\n"
    "  float4 acc = (float4)(0.0f);\n"
    "  for (int i = 0; i < 16; i++) {\n"
    "    int p = gid + i * n;\n"
    "    acc += read_imagef(im, s, (int2)(p & ((1 << logw) - 1), p >> logw));\n"
    "  }\n"
    "  out[gid] = ((acc.x + acc.y) + acc.z) + acc.w;\n"
    "}\n"
    "__kernel void filter3(read_only image2d_t in, sampler_t s, write_only image2d_t out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 acc = (float4)(0.0f);\n"
    "  for (int dy = -1; dy <= 1; dy++)\n"
    "    for (int dx = -1; dx <= 1; dx++) {\n"
    "      float w = (dx == 0 ? 2.0f : 1.0f) * (dy == 0 ? 2.0f : 1.0f) / 16.0f;\n"
    "      acc += w * read_imagef(in, s, (float2)(x + dx + 0.5f, y + dy + 0.5f));\n"
    "    }\n"
    "  write_imagef(out, (int2)(x, y), acc);\n"
    "}\n";

static cl_context ctx;
static cl_command_queue q;
static cl_program prog;
static cl_device_id dev;

static void report(const char *name, double best_s, double bytes, int ok, const char *detail) {
    printf("R %s %.3f %.1f %s %s\n", name, best_s * 1e3, bytes / best_s / 1e9, ok ? "ok" : "FAIL",
           detail);
    fflush(stdout);
    if (!ok) failures++;
}

/* Runs kernel k over the NDRange g (groups l) REPS times after a warm-up; the best time. */
static double time_ndrange(cl_kernel k, cl_uint dims, const size_t *g, const size_t *l) {
    double best = 1e30;
    for (int r = 0; r <= REPS; r++) {
        double t0 = now();
        CK(clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, NULL));
        CK(clFinish(q));
        double t = now() - t0;
        if (r > 0 && t < best) best = t;
    }
    return best;
}

/* kernel k over W x H in 16x16 groups. */
static double time_kernel(cl_kernel k) {
    size_t g[2] = {W, H}, l[2] = {16, 16};
    return time_ndrange(k, 2, g, l);
}

static cl_mem make_image(cl_mem_flags flags, cl_channel_type type, void *host) {
    cl_image_format f = {CL_RGBA, type};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = W;
    d.image_height = H;
    cl_int e;
    cl_mem m = clCreateImage(ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), &f, &d, host, &e);
    CK(e);
    return m;
}

/* Pixel (x, y) of the input images, as floats the kernels should see. */
static void pixel_u8(const uint8_t *img, int x, int y, float v[4]) {
    x = x < 0 ? 0 : x >= W ? W - 1 : x; /* CLAMP_TO_EDGE */
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    for (int c = 0; c < 4; c++) v[c] = img[((size_t)y * W + x) * 4 + c] / 255.0f;
}

static void bench_read(const char *name, cl_channel_type type, int sampler) {
    size_t n = (size_t)W * H, esz = type == CL_FLOAT ? 16 : 4;
    void *host = malloc(n * esz);
    uint32_t seed = 12345;
    for (size_t i = 0; i < n * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        if (type == CL_FLOAT)
            ((float *)host)[i] = (float)((seed >> 8) & 0xffff) / 4096.0f - 8.0f;
        else
            ((uint8_t *)host)[i] = (uint8_t)(seed >> 24);
    }
    cl_mem im = make_image(CL_MEM_READ_ONLY, type, host);
    cl_int e;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, NULL, &e);
    CK(e);
    cl_kernel k = clCreateKernel(prog, sampler ? "read_s" : "read_n", &e);
    CK(e);
    cl_sampler s = NULL;
    CK(clSetKernelArg(k, 0, sizeof im, &im));
    if (sampler) {
        s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &e);
        CK(e);
        CK(clSetKernelArg(k, 1, sizeof s, &s));
        CK(clSetKernelArg(k, 2, sizeof out, &out));
    } else {
        CK(clSetKernelArg(k, 1, sizeof out, &out));
    }
    double best = time_kernel(k);
    float *res = malloc(n * 4);
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 4, res, 0, NULL, NULL));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        float v[4];
        if (type == CL_FLOAT)
            memcpy(v, (float *)host + i * 4, sizeof v);
        else
            pixel_u8(host, (int)(i % W), (int)(i / W), v);
        float want = (v[0] + v[1]) + (v[2] + v[3]);
        /* unorm8 -> float may differ in the last bit between implementations */
        if (!(fabsf(res[i] - want) <= 1e-5f * (1.0f + fabsf(want)))) {
            if (!bad) first = i;
            bad++;
        }
    }
    char d[160];
    snprintf(d, sizeof d, "%zu of %zu pixels wrong%s", bad, n, bad ? "" : "");
    if (bad)
        snprintf(d, sizeof d, "%zu of %zu pixels wrong, first (%zu,%zu) got %g", bad, n, first % W,
                 first / W, res[first]);
    report(name, best, (double)n * esz + n * 4.0, bad == 0, d);
    free(res);
    free(host);
    if (s) clReleaseSampler(s);
    clReleaseKernel(k);
    clReleaseMemObject(out);
    clReleaseMemObject(im);
}

static float cpu_write_value(int x, int y, int c, int mul) {
    const float k = 1.0f / 255.0f;
    int v = c == 0 ? (x & 255) : c == 1 ? (y & 255) : ((x + y) & 255);
    if (c == 3) return 1.0f;
    return mul ? v * k : v / 255.0f;
}

/* A float the kernel computed against the host's: equal for the multiplication, within the
 * 2.5 ulp OpenCL 1.2 allows single-precision division (section 7.4) for the division. */
static int float_close(float got, float want, int mul) {
    if (mul) return got == want;
    float ulp = nextafterf(fabsf(want), INFINITY) - fabsf(want);
    return fabsf(got - want) <= 2.5f * ulp;
}

/* kernel: write_f (divisions) or write_m (multiplications). */
static void bench_write(const char *name, cl_channel_type type, const char *kernel) {
    int mul = strcmp(kernel, "write_m") == 0;
    size_t n = (size_t)W * H, esz = type == CL_FLOAT ? 16 : 4;
    cl_mem im = make_image(CL_MEM_WRITE_ONLY, type, NULL);
    cl_int e;
    cl_kernel k = clCreateKernel(prog, kernel, &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof im, &im));
    double best = time_kernel(k);
    void *res = malloc(n * esz);
    size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
    CK(clEnqueueReadImage(q, im, CL_TRUE, o, r, 0, 0, res, 0, NULL, NULL));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 4; c++) {
            float want = cpu_write_value((int)(i % W), (int)(i / W), c, mul);
            int ok = type == CL_FLOAT
                         ? float_close(((float *)res)[i * 4 + c], want, mul)
                         : ((uint8_t *)res)[i * 4 + c] == (uint8_t)lrintf(want * 255.0f);
            if (!ok) bad++;
        }
    char d[96];
    snprintf(d, sizeof d, "%zu of %zu channels wrong", bad, n * 4);
    report(name, best, (double)n * esz, bad == 0, d);
    free(res);
    clReleaseKernel(k);
    clReleaseMemObject(im);
}

/* clpeak's way of measuring image reads (see the header): read16 over an RGBA float image. */
static void bench_read_strided16(void) {
    size_t n = (size_t)W * H, wg = 0;
    CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    size_t global = n / 16 / wg * wg;
    float *host = malloc(n * 16);
    uint32_t seed = 4242;
    for (size_t i = 0; i < n * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        host[i] = (float)(seed >> 8) / 16777216.0f;
    }
    cl_mem im = make_image(CL_MEM_READ_ONLY, CL_FLOAT, host);
    cl_int e, logw = 0;
    while ((1 << logw) < W) logw++;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, global * 4, NULL, &e);
    CK(e);
    cl_kernel k = clCreateKernel(prog, "read16", &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof im, &im));
    CK(clSetKernelArg(k, 1, sizeof out, &out));
    CK(clSetKernelArg(k, 2, sizeof logw, &logw));
    double best = time_ndrange(k, 1, &global, &wg);
    float *res = malloc(global * 4);
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, global * 4, res, 0, NULL, NULL));
    size_t bad = 0;
    for (size_t g = 0; g < global; g++) {
        float a[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < 16; i++)
            for (int c = 0; c < 4; c++) a[c] += host[(g + i * global) * 4 + c];
        float want = ((a[0] + a[1]) + a[2]) + a[3];
        if (fabsf(res[g] - want) > 1e-5f * fabsf(want)) bad++;
    }
    char d[96];
    snprintf(d, sizeof d, "%zu of %zu sums wrong (work-group %zu)", bad, global, wg);
    report("read_strided16_rgba32f", best, (double)global * 16 * 16, bad == 0, d);
    free(res);
    free(host);
    clReleaseKernel(k);
    clReleaseMemObject(out);
    clReleaseMemObject(im);
}

/* The 3x3 filter from an RGBA8 or RGBA32F image (the same random bytes, as floats /255 for
 * RGBA32F) into an RGBA8 or RGBA32F image. RGBA8 -> RGBA8 is imagebench's original row;
 * RGBA32F -> RGBA32F and the mixed RGBA8 -> RGBA32F check cudacl's other code shapes (a kernel
 * whose images all have one fast format is specialised for it; a mixed one is not). */
static void bench_filter(const char *name, cl_channel_type tin, cl_channel_type tout) {
    size_t n = (size_t)W * H;
    uint8_t *host = malloc(n * 4);
    float *hostf = malloc(n * 16);
    uint32_t seed = 777;
    for (size_t i = 0; i < n * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        host[i] = (uint8_t)(seed >> 24);
        hostf[i] = host[i] / 255.0f;
    }
    cl_mem in = make_image(CL_MEM_READ_ONLY, tin, tin == CL_FLOAT ? (void *)hostf : (void *)host);
    cl_mem out = make_image(CL_MEM_WRITE_ONLY, tout, NULL);
    cl_int e;
    cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &e);
    CK(e);
    cl_kernel k = clCreateKernel(prog, "filter3", &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof in, &in));
    CK(clSetKernelArg(k, 1, sizeof s, &s));
    CK(clSetKernelArg(k, 2, sizeof out, &out));
    double best = time_kernel(k);
    size_t osz = tout == CL_FLOAT ? 16 : 4;
    void *res = malloc(n * osz);
    size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
    CK(clEnqueueReadImage(q, out, CL_TRUE, o, r, 0, 0, res, 0, NULL, NULL));
    size_t bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float acc[4] = {0, 0, 0, 0};
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    float v[4], w = (dx == 0 ? 2.0f : 1.0f) * (dy == 0 ? 2.0f : 1.0f) / 16.0f;
                    pixel_u8(host, x + dx, y + dy, v);
                    for (int c = 0; c < 4; c++) acc[c] += w * v[c];
                }
            for (int c = 0; c < 4; c++) {
                size_t i = ((size_t)y * W + x) * 4 + c;
                if (tout == CL_FLOAT) {
                    /* summation order may differ: a few ulp */
                    if (!(fabsf(((float *)res)[i] - acc[c]) <= 1e-6f)) bad++;
                } else {
                    /* float -> unorm8 rounds to nearest; allow one unit (summation order, ties) */
                    int want = (int)lrintf(fminf(fmaxf(acc[c], 0.0f), 1.0f) * 255.0f);
                    if (abs(((uint8_t *)res)[i] - want) > 1) bad++;
                }
            }
        }
    char d[96];
    snprintf(d, sizeof d, "%zu of %zu channels off", bad, n * 4);
    report(name, best, (double)n * ((tin == CL_FLOAT ? 16 : 4) + osz), bad == 0, d);
    free(res);
    free(host);
    free(hostf);
    clReleaseKernel(k);
    clReleaseSampler(s);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

static void bench_transfer(void) {
    size_t n = (size_t)W * H * 4;
    uint8_t *src = malloc(n), *dst = malloc(n);
    for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(i * 2654435761u >> 13);
    cl_mem im = make_image(CL_MEM_READ_WRITE, CL_UNORM_INT8, NULL);
    size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
    double bw = 1e30, br = 1e30;
    for (int k = 0; k <= REPS / 2; k++) {
        double t0 = now();
        CK(clEnqueueWriteImage(q, im, CL_TRUE, o, r, 0, 0, src, 0, NULL, NULL));
        double t = now() - t0;
        if (k > 0 && t < bw) bw = t;
        memset(dst, 0, n);
        t0 = now();
        CK(clEnqueueReadImage(q, im, CL_TRUE, o, r, 0, 0, dst, 0, NULL, NULL));
        t = now() - t0;
        if (k > 0 && t < br) br = t;
    }
    int ok = memcmp(src, dst, n) == 0;
    report("write_image_64MiB", bw, (double)n, ok, ok ? "read back equal" : "read back differs");
    report("read_image_64MiB", br, (double)n, ok, ok ? "equal to what was written" : "differs");
    free(src);
    free(dst);
    clReleaseMemObject(im);
}

static int table(const char *a, const char *b) {
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    if (!fa || !fb) {
        fprintf(stderr, "imagebench: cannot open %s or %s\n", a, b);
        return 2;
    }
    char names[32][64], st[2][32][8];
    double gbs[2][32];
    int n = 0;
    char line[512];
    for (int p = 0; p < 2; p++) {
        FILE *f = p ? fb : fa;
        while (fgets(line, sizeof line, f)) {
            char nm[64], okw[8];
            double ms, g;
            if (sscanf(line, "R %63s %lf %lf %7s", nm, &ms, &g, okw) != 4) continue;
            int i = 0;
            while (i < n && strcmp(names[i], nm)) i++;
            if (i == n && n < 32) {
                strcpy(names[n], nm);
                gbs[0][n] = gbs[1][n] = 0;
                strcpy(st[0][n], "-");
                strcpy(st[1][n], "-");
                n++;
            }
            if (i < 32) {
                gbs[p][i] = g;
                strcpy(st[p][i], okw);
            }
        }
    }
    printf("%-24s %12s %12s %7s\n", "test (GB/s, checked)", "cudacl", "NVIDIA", "ratio");
    for (int i = 0; i < n; i++) {
        char ca[32], cb[32];
        snprintf(ca, sizeof ca, "%.1f %.7s", gbs[0][i], st[0][i]);
        snprintf(cb, sizeof cb, "%.1f %.7s", gbs[1][i], st[1][i]);
        if (gbs[1][i] > 0 && !strcmp(st[0][i], "ok") && !strcmp(st[1][i], "ok"))
            printf("%-24s %12s %12s %7.2f\n", names[i], ca, cb, gbs[0][i] / gbs[1][i]);
        else
            printf("%-24s %12s %12s %7s\n", names[i], ca, cb, "-");
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--table")) return table(argv[2], argv[3]);
    const char *want = argc > 1 ? argv[1] : NULL;
    cl_platform_id ps[16];
    cl_uint np = 0;
    CK(clGetPlatformIDs(16, ps, &np));
    cl_platform_id plat = NULL;
    char pname[256] = "";
    for (cl_uint i = 0; i < np && !plat; i++) {
        char nm[256];
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof nm, nm, NULL);
        if (want && !strstr(nm, want)) continue;
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) == CL_SUCCESS && nd) {
            plat = ps[i];
            strcpy(pname, nm);
        } else if (want && clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) == CL_SUCCESS &&
                   nd) {
            plat = ps[i];
            strcpy(pname, nm);
        }
    }
    if (!plat) {
        fprintf(stderr, "imagebench: no platform with a device%s%s\n", want ? " matching " : "",
                want ? want : "");
        return 2;
    }
    char dname[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    cl_bool img = CL_FALSE;
    clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof img, &img, NULL);
    printf("# platform %s, device %s, images %s\n", pname, dname, img ? "yes" : "no");
    if (!img) return 2;
    cl_int e;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CK(e);
    q = clCreateCommandQueue(ctx, dev, 0, &e);
    CK(e);
    prog = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &e);
    CK(e);
    if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        char log[8192];
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "imagebench: build failed:\n%s\n", log);
        return 2;
    }
    if (group_wanted("read")) {
        bench_read("read_rgba8_sampler", CL_UNORM_INT8, 1);
        bench_read("read_rgba8_nosampler", CL_UNORM_INT8, 0);
        bench_read("read_rgba32f_sampler", CL_FLOAT, 1);
        bench_read("read_rgba32f_nosampler", CL_FLOAT, 0);
        bench_read_strided16();
    }
    if (group_wanted("write")) {
        bench_write("write_rgba8", CL_UNORM_INT8, "write_f");
        bench_write("write_rgba32f", CL_FLOAT, "write_f");
        bench_write("write_rgba8_mul", CL_UNORM_INT8, "write_m");
        bench_write("write_rgba32f_mul", CL_FLOAT, "write_m");
    }
    if (group_wanted("filter")) {
        bench_filter("filter3x3_rgba8", CL_UNORM_INT8, CL_UNORM_INT8);
        bench_filter("filter3x3_rgba32f", CL_FLOAT, CL_FLOAT);
        bench_filter("filter3x3_rgba8_to_32f", CL_UNORM_INT8, CL_FLOAT);
    }
    if (group_wanted("transfer")) bench_transfer();
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return failures ? 1 : 0;
}
