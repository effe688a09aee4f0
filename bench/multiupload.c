/* Uploads into several GPUs at once (issue 25): one OpenCL context over the first D GPUs of the
 * platform, one host thread and one command queue per device, each thread writing its own S MiB
 * of touched pageable memory into its own buffer with a blocking clEnqueueWriteBuffer, all
 * threads started together. This is what ompcl does when it spreads a region over the GPUs, and
 * the total rate should grow with D where every GPU has its own link.
 *   multiupload [MiB]      default 256; OCL_ICD_FILENAMES picks the platform
 * Prints, for D = 1, 2, 4, ... up to every GPU: the aggregate GB/s (total bytes over the time from
 * the start to the last thread's return), median of REPS, each on a buffer written before (so
 * allocation is not timed). The last write of every device is read back (a few samples) and
 * checked; a mismatch prints "MISMATCH" and exits 1. */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5
#define MAX_DEV 16

#define CHECK(e)                                                                                   \
    do {                                                                                           \
        cl_int err_ = (e);                                                                         \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "multiupload: %s failed: %d (line %d)\n", #e, err_, __LINE__);         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    cl_command_queue q;
    cl_mem buf;
    unsigned char *host;
    size_t bytes;
    pthread_barrier_t *start;
    double done_at;
    cl_int err;
} upload;

static void *run_upload(void *p) {
    upload *u = p;
    pthread_barrier_wait(u->start);
    u->err = clEnqueueWriteBuffer(u->q, u->buf, CL_TRUE, 0, u->bytes, u->host, 0, NULL, NULL);
    u->done_at = now();
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Aggregate GB/s of one round of d concurrent uploads; stamps the data with `round` first. */
static double round_gbps(upload *u, int d, int round) {
    pthread_t th[MAX_DEV];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)d + 1);
    for (int i = 0; i < d; i++) {
        for (size_t k = 0; k < u[i].bytes; k += 4096) u[i].host[k] = (unsigned char)(round + i + k / 4096);
        u[i].start = &start;
        if (pthread_create(&th[i], NULL, run_upload, &u[i])) {
            fprintf(stderr, "multiupload: pthread_create failed\n");
            exit(1);
        }
    }
    double t0 = now();
    pthread_barrier_wait(&start);
    double last = t0;
    for (int i = 0; i < d; i++) {
        pthread_join(th[i], NULL);
        CHECK(u[i].err);
        if (u[i].done_at > last) last = u[i].done_at;
    }
    pthread_barrier_destroy(&start);
    return (double)u[0].bytes * d / (last - t0) / 1e9;
}

/* Reads back one byte per page of device i's buffer and compares it with the host's. */
static int check(upload *u, int i) {
    size_t pages = u[i].bytes / 4096;
    unsigned char *back = malloc(u[i].bytes);
    if (!back) return 1;
    CHECK(clEnqueueReadBuffer(u[i].q, u[i].buf, CL_TRUE, 0, u[i].bytes, back, 0, NULL, NULL));
    int bad = 0;
    for (size_t k = 0; k < pages; k++)
        if (back[k * 4096] != u[i].host[k * 4096]) bad = 1;
    free(back);
    return bad;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t bytes = mib << 20;
    cl_platform_id plat;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    cl_device_id dev[MAX_DEV];
    cl_uint nd = 0;
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, MAX_DEV, dev, &nd));
    char pname[256] = "";
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, nd, dev, NULL, NULL, &err);
    CHECK(err);
    upload u[MAX_DEV];
    for (cl_uint i = 0; i < nd; i++) {
        u[i].q = clCreateCommandQueue(ctx, dev[i], 0, &err);
        CHECK(err);
        u[i].buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        CHECK(err);
        u[i].host = malloc(bytes);
        if (!u[i].host) return 1;
        memset(u[i].host, (int)i, bytes);
        u[i].bytes = bytes;
        /* Not timed: the buffer's device memory and the platform's staging exist afterwards. */
        CHECK(clEnqueueWriteBuffer(u[i].q, u[i].buf, CL_TRUE, 0, bytes, u[i].host, 0, NULL, NULL));
    }
    printf("multiupload %s: %u GPUs, %zu MiB each, median of %d\n", pname, nd, mib, REPS);
    printf("%-8s %10s %12s\n", "devices", "GB/s", "per device");
    int bad = 0;
    for (cl_uint d = 1; d <= nd; d = d * 2 > nd && d < nd ? nd : d * 2) {
        double r[REPS];
        for (int k = 0; k < REPS; k++) r[k] = round_gbps(u, (int)d, k);
        qsort(r, REPS, sizeof r[0], cmp_double);
        for (cl_uint i = 0; i < d; i++) bad |= check(u, (int)i);
        printf("%-8u %10.2f %12.2f\n", d, r[REPS / 2], r[REPS / 2] / d);
    }
    if (bad) printf("MISMATCH\n");
    return bad;
}
