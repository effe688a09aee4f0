/* How fast can ompcl's runtime move a region's arrays the first time, the way a program meets them:
 * uploads into a buffer just created, and copy-back of a kernel's result into host memory that was
 * touched before, never touched, or replaced by a fresh mapping (ompcl's fetch_pages). Each case uses
 * fresh host memory and a fresh buffer (first-time costs are what a program run pays), median of 5.
 *   up.create    clCreateBuffer alone (ms)
 *   up.first     first clEnqueueWriteBuffer into that buffer, from touched memory (GB/s)
 *   up.again     a second write into the same buffer (GB/s)
 *   dn.touched   read into memory the program wrote before (GB/s)
 *   dn.fresh     read into memory never touched (GB/s)
 *   dn.swap      mmap(MAP_POPULATE) + read + mprotect + mremap over the block (fetch_pages, GB/s)
 *   dn.popwrite  madvise(MADV_POPULATE_WRITE) on the never-touched block, then read (GB/s)
 *   dn.pinned    read into a pinned (ALLOC_HOST_PTR) buffer, then memcpy into never-touched memory
 *   populate     mmap(MAP_POPULATE) alone (GB/s of populated memory)
 *   copyback [MiB ...]     (OCL_ICD_FILENAMES picks the platform)
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CHECK(e)                                                                                   \
    do {                                                                                           \
        cl_int err_ = (e);                                                                         \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "copyback: %s failed: %d (line %d)\n", #e, err_, __LINE__);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static cl_context ctx;
static cl_command_queue q;

static void *fresh(size_t n) {
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

static void fill(unsigned *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n / 4; i++) p[i] = seed * 2654435761u + (unsigned)i;
}

static void expect(const unsigned *p, size_t n, unsigned seed, const char *what) {
    for (size_t i = 0; i < n / 4; i++)
        if (p[i] != seed * 2654435761u + (unsigned)i) {
            fprintf(stderr, "copyback: %s: wrong bytes at word %zu\n", what, i);
            exit(1);
        }
}

enum { CREATE, FIRST, AGAIN, TOUCHED, FRESH, SWAP, POPWRITE, PINNED, POPULATE, NCASE };
static const char *names[NCASE] = {"up.create(ms)", "up.first", "up.again", "dn.touched", "dn.fresh",
                                   "dn.swap",       "dn.popwrite", "dn.pinned", "populate"};

/* One sample of every case for n bytes; t[c] in microseconds. */
static void sample(size_t n, unsigned seed, double *t) {
    cl_int err;
    void *src = fresh(n);
    fill(src, n, seed);
    double t0 = now_us();
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    t[CREATE] = now_us() - t0;
    t0 = now_us();
    CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n, src, 0, NULL, NULL));
    t[FIRST] = now_us() - t0;
    t0 = now_us();
    CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n, src, 0, NULL, NULL));
    t[AGAIN] = now_us() - t0;

    void *dst = fresh(n);
    memset(dst, 0, n);
    t0 = now_us();
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, dst, 0, NULL, NULL));
    t[TOUCHED] = now_us() - t0;
    expect(dst, n, seed, "dn.touched");
    munmap(dst, n);

    dst = fresh(n);
    t0 = now_us();
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, dst, 0, NULL, NULL));
    t[FRESH] = now_us() - t0;
    expect(dst, n, seed, "dn.fresh");
    munmap(dst, n);

    dst = fresh(n);
    t0 = now_us();
    void *tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    CHECK(tmp == MAP_FAILED);
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, tmp, 0, NULL, NULL));
    mprotect(tmp, n, PROT_READ);
    CHECK(mremap(tmp, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED);
    t[SWAP] = now_us() - t0;
    expect(dst, n, seed, "dn.swap");
    munmap(dst, n);

    dst = fresh(n);
    t0 = now_us();
    int pw = madvise(dst, n, MADV_POPULATE_WRITE);
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, dst, 0, NULL, NULL));
    t[POPWRITE] = pw ? -1 : now_us() - t0;
    expect(dst, n, seed, "dn.popwrite");
    munmap(dst, n);

    cl_mem pin = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
    CHECK(err);
    void *pp = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    CHECK(err);
    memset(pp, 0, n);
    dst = fresh(n);
    t0 = now_us();
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, pp, 0, NULL, NULL));
    memcpy(dst, pp, n);
    t[PINNED] = now_us() - t0;
    expect(dst, n, seed, "dn.pinned");
    munmap(dst, n);
    CHECK(clEnqueueUnmapMemObject(q, pin, pp, 0, NULL, NULL));
    CHECK(clFinish(q));
    clReleaseMemObject(pin);

    t0 = now_us();
    tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    t[POPULATE] = now_us() - t0;
    munmap(tmp, n);
    munmap(src, n);
    clReleaseMemObject(buf);
}

int main(int argc, char **argv) {
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));
    char pname[256];
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    double mib[8] = {2.25, 16, 64};
    int nsize = 3;
    if (argc > 1) {
        nsize = argc - 1 < 8 ? argc - 1 : 8;
        for (int i = 0; i < nsize; i++) mib[i] = atof(argv[i + 1]);
    }
    printf("copyback: platform %s; GB/s (up.create: ms), median of 5 first-time samples\n%8s", pname, "MiB");
    for (int c = 0; c < NCASE; c++) printf(" %13s", names[c]);
    printf("\n");
    for (int s = 0; s < nsize; s++) {
        size_t n = (size_t)(mib[s] * 1048576) & ~(size_t)4095;
        double t[5][NCASE];
        sample(n, 99, t[0]); /* warm-up: first use of the context's paths */
        for (int r = 0; r < 5; r++) sample(n, (unsigned)(s * 5 + r + 1), t[r]);
        printf("%8.2f", mib[s]);
        for (int c = 0; c < NCASE; c++) {
            double v[5];
            for (int r = 0; r < 5; r++) v[r] = t[r][c];
            qsort(v, 5, sizeof v[0], cmp);
            if (v[2] < 0) printf(" %13s", "n/a");
            else if (c == CREATE) printf(" %13.3f", v[2] / 1e3);
            else printf(" %13.2f", n / v[2] / 1e3);
        }
        printf("\n");
    }
    return 0;
}
