/* Transfer speed by size, the way ompcl's runtime moves a program's arrays: blocking
 * clEnqueueWriteBuffer / clEnqueueReadBuffer of one block of 1-64 MiB between a buffer and
 *   - pageable memory (malloc'd, touched),
 *   - pageable memory that is write-protected (mprotect PROT_READ: ompcl's host-write tracking),
 *   - pinned memory (a CL_MEM_ALLOC_HOST_PTR buffer, mapped),
 * and what making such pinned memory costs (clCreateBuffer(ALLOC_HOST_PTR) + map); then the first
 * transfer of a new buffer (w.first: a new buffer from touched memory, r.fresh: a read into memory
 * the process never touched, as a program's untouched result arrays are).
 * Median of 9 transfers after 2 warm-ups; every transfer's bytes are checked once.
 *   xfersize            one table for the first platform's first GPU (OCL_ICD_FILENAMES picks it)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
            fprintf(stderr, "xfersize: %s failed: %d (line %d)\n", #e, err_, __LINE__);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static cl_context ctx;
static cl_command_queue q;

/* GB/s of a blocking write (dir 0) or read (dir 1) of n bytes between buf and host. */
static double rate(cl_mem buf, void *host, size_t n, int dir) {
    double t[9];
    for (int i = -2; i < 9; i++) {
        double t0 = now_us();
        if (dir == 0) CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n, host, 0, NULL, NULL));
        else CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, host, 0, NULL, NULL));
        if (i >= 0) t[i] = now_us() - t0;
    }
    qsort(t, 9, sizeof t[0], cmp);
    return n / t[4] / 1e3;
}

static void fill(unsigned *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n / 4; i++) p[i] = seed * 2654435761u + (unsigned)i;
}

static int same(const unsigned *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n / 4; i++)
        if (p[i] != seed * 2654435761u + (unsigned)i) return 0;
    return 1;
}

int main(void) {
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
    long page = sysconf(_SC_PAGESIZE);
    printf("xfersize: platform %s; GB/s, median of 9 blocking transfers\n", pname);
    printf("%-8s %9s %9s %9s %9s %9s %9s %12s %9s %9s\n", "MiB", "w.page", "r.page", "w.ro", "w.pin", "r.pin",
           "alloc.pin", "(ms to pin)", "w.first", "r.fresh");
    int bad = 0;
    for (size_t mb = 1; mb <= 64; mb *= 2) {
        size_t n = mb << 20;
        cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        CHECK(err);
        unsigned *pg;
        if (posix_memalign((void **)&pg, page, n)) return 1;
        fill(pg, n, 1);
        double wp = rate(buf, pg, n, 0);
        memset(pg, 0, n);
        double rp = rate(buf, pg, n, 1);
        bad |= !same(pg, n, 1);
        mprotect(pg, n, PROT_READ);
        double wro = rate(buf, pg, n, 0);
        mprotect(pg, n, PROT_READ | PROT_WRITE);
        double t0 = now_us();
        cl_mem hb = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
        CHECK(err);
        unsigned *pin = clEnqueueMapBuffer(q, hb, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
        CHECK(err);
        double tpin = (now_us() - t0) / 1e3;
        fill(pin, n, 2);
        double wpin = rate(buf, pin, n, 0);
        memset(pin, 0, n);
        double rpin = rate(buf, pin, n, 1);
        bad |= !same(pin, n, 2);
        /* first transfers: one of each, so a single sample */
        cl_mem fb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        CHECK(err);
        double t1 = now_us();
        CHECK(clEnqueueWriteBuffer(q, fb, CL_TRUE, 0, n, pg, 0, NULL, NULL));
        double wfirst = n / (now_us() - t1) / 1e3;
        unsigned *fresh;
        if (posix_memalign((void **)&fresh, page, n)) return 1;
        t1 = now_us();
        CHECK(clEnqueueReadBuffer(q, fb, CL_TRUE, 0, n, fresh, 0, NULL, NULL));
        double rfresh = n / (now_us() - t1) / 1e3;
        bad |= !same(fresh, n, 1);
        free(fresh);
        clReleaseMemObject(fb);
        printf("%-8zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %12.3f %9.2f %9.2f\n", mb, wp, rp, wro, wpin, rpin, n / tpin / 1e6,
               tpin, wfirst, rfresh);
        CHECK(clEnqueueUnmapMemObject(q, hb, pin, 0, NULL, NULL));
        CHECK(clFinish(q));
        clReleaseMemObject(hb);
        clReleaseMemObject(buf);
        free(pg);
    }
    if (bad) printf("xfersize: FAILED: a read gave other bytes than were written\n");
    return bad;
}
