/* The first upload of a large array into a new buffer, the transfer that dominates ompcl's
 * matrix-vector programs (atax, bicg, gesummv, mvt: 64-134 MB sent once), done several ways, to
 * find which one a driver rewards. NVIDIA's OpenCL moves such a first upload at 6-7 GB/s inside
 * those programs, against 12-17 GB/s for repeated writes into an old buffer: it allocates device
 * memory on first use and copies pageable memory through its own staging.
 *   plain    clCreateBuffer + blocking clEnqueueWriteBuffer from touched pageable memory
 *   huge     the same from 2 MiB-aligned memory with MADV_HUGEPAGE (what ompcl's allocator gives)
 *   prealloc clEnqueueMigrateMemObjects(CONTENT_UNDEFINED) first (not timed: "prep" column), then
 *            the write (timed): what allocating device memory ahead of the upload would buy
 *   stageT/C the write through two pinned staging buffers (mapped CL_MEM_ALLOC_HOST_PTR, made
 *            beforehand) in C MiB chunks, T host threads copying the next chunk while the copy
 *            engine reads the last (ompcl's rt_stage.c)
 *   parT     T host threads, each with its own command queue (made beforehand), each writing its
 *            own part with a blocking clEnqueueWriteBuffer: the driver's own pageable staging, T
 *            times at once
 *   pincopy  clEnqueueCopyBuffer from an already filled ALLOC_HOST_PTR buffer (on NVIDIA a copy
 *            inside the device: the buffer's device copy is current after the unmap)
 * GB/s (the staging and parallel columns: T/chunk MiB, T), median of 5, each on a new buffer and a newly touched array; the last buffer of each way
 * is read back and checked.
 *   firstupload [MiB...]      default 16 64 128; OCL_ICD_FILENAMES picks the platform
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define REPS 5
#define MAX_THREADS 8

#define CHECK(e)                                                                                   \
    do {                                                                                           \
        cl_int err_ = (e);                                                                         \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "firstupload: %s failed: %d (line %d)\n", #e, err_, __LINE__);         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static cl_context ctx;
static cl_command_queue q;
static int bad;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t) {
    qsort(t, REPS, sizeof t[0], cmp);
    return t[REPS / 2];
}

/* A touched array of n bytes holding seed's pattern; huge: 2 MiB-aligned with MADV_HUGEPAGE. */
static unsigned *array(size_t n, unsigned seed, int huge) {
    unsigned *p;
    if (posix_memalign((void **)&p, huge ? (size_t)2 << 20 : 4096, n)) exit(1);
    if (huge) madvise(p, n, MADV_HUGEPAGE);
    for (size_t i = 0; i < n / 4; i++) p[i] = seed * 2654435761u + (unsigned)i;
    return p;
}

static void check(cl_mem buf, size_t n, unsigned seed) {
    unsigned *back = malloc(n);
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n, back, 0, NULL, NULL));
    for (size_t i = 0; i < n / 4; i++)
        if (back[i] != seed * 2654435761u + (unsigned)i) {
            bad = 1;
            break;
        }
    free(back);
}

static cl_mem new_buffer(size_t n) {
    cl_int err;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    return b;
}

typedef struct part {
    char *dst;
    const char *src;
    size_t n;
} part;

static void *part_run(void *a) {
    part *c = a;
    memcpy(c->dst, c->src, c->n);
    return NULL;
}

static void copy_threads(char *dst, const char *src, size_t n, int threads) {
    pthread_t t[MAX_THREADS];
    part c[MAX_THREADS];
    size_t each = (n / threads + 63) & ~(size_t)63;
    for (int k = 0; k < threads; k++) {
        size_t at = (size_t)k * each;
        c[k] = (part){dst + at, src + at, at >= n ? 0 : (n - at < each ? n - at : each)};
        if (k > 0) pthread_create(&t[k], NULL, part_run, &c[k]);
    }
    part_run(&c[0]);
    for (int k = 1; k < threads; k++) pthread_join(t[k], NULL);
}

static cl_mem stage_mem[2];
static char *stage_ptr[2];

static void write_staged(cl_mem buf, const char *src, size_t n, size_t chunk, int threads) {
    cl_event done[2] = {NULL, NULL};
    int k = 0;
    for (size_t at = 0; at < n; at += chunk, k ^= 1) {
        size_t len = n - at < chunk ? n - at : chunk;
        if (done[k]) {
            CHECK(clWaitForEvents(1, &done[k]));
            clReleaseEvent(done[k]);
        }
        copy_threads(stage_ptr[k], src + at, len, threads);
        CHECK(clEnqueueWriteBuffer(q, buf, CL_FALSE, at, len, stage_ptr[k], 0, NULL, &done[k]));
    }
    CHECK(clFinish(q));
    for (k = 0; k < 2; k++)
        if (done[k]) clReleaseEvent(done[k]);
}

static cl_command_queue par_q[MAX_THREADS];

typedef struct par_part {
    cl_command_queue q;
    cl_mem buf;
    size_t at, n;
    const char *src;
} par_part;

static void *par_run(void *a) {
    par_part *c = a;
    CHECK(clEnqueueWriteBuffer(c->q, c->buf, CL_TRUE, c->at, c->n, c->src + c->at, 0, NULL, NULL));
    return NULL;
}

/* n bytes written by threads threads at once, each through its own queue. */
static void write_parallel(cl_mem buf, const char *src, size_t n, int threads) {
    pthread_t t[MAX_THREADS];
    par_part c[MAX_THREADS];
    size_t each = (n / threads + 4095) & ~(size_t)4095;
    for (int k = 0; k < threads; k++) {
        size_t at = (size_t)k * each;
        c[k] = (par_part){par_q[k], buf, at, at >= n ? 0 : (n - at < each ? n - at : each), src};
        if (k > 0) pthread_create(&t[k], NULL, par_run, &c[k]);
    }
    par_run(&c[0]);
    for (int k = 1; k < threads; k++) pthread_join(t[k], NULL);
}

enum { PLAIN, HUGE, PREALLOC, STAGE, PARALLEL, PINCOPY };

/* GB/s of one way of uploading n bytes (median of REPS), *prep_ms the untimed preparation. */
static double way(int how, size_t n, size_t chunk, int threads, double *prep_ms) {
    double t[REPS], prep[REPS];
    cl_mem pin = NULL;
    if (how == PINCOPY) {
        cl_int err;
        pin = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
        CHECK(err);
        unsigned *p = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
        CHECK(err);
        for (size_t i = 0; i < n / 4; i++) p[i] = 7 * 2654435761u + (unsigned)i;
        CHECK(clEnqueueUnmapMemObject(q, pin, p, 0, NULL, NULL));
        CHECK(clFinish(q));
    }
    for (int r = 0; r < REPS; r++) {
        unsigned seed = 11 + r;
        unsigned *src = how == PINCOPY ? NULL : array(n, seed, how == HUGE);
        double t0 = now_ms();
        cl_mem buf = new_buffer(n);
        prep[r] = 0;
        if (how == PREALLOC) {
            CHECK(clEnqueueMigrateMemObjects(q, 1, &buf, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL));
            CHECK(clFinish(q));
            prep[r] = now_ms() - t0;
            t0 = now_ms();
        }
        if (how == STAGE) write_staged(buf, (const char *)src, n, chunk, threads);
        else if (how == PARALLEL) write_parallel(buf, (const char *)src, n, threads);
        else if (how == PINCOPY) {
            CHECK(clEnqueueCopyBuffer(q, pin, buf, 0, 0, n, 0, NULL, NULL));
            CHECK(clFinish(q));
        } else CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n, src, 0, NULL, NULL));
        t[r] = now_ms() - t0;
        if (r == REPS - 1) check(buf, n, how == PINCOPY ? 7 : seed);
        clReleaseMemObject(buf);
        free(src);
    }
    if (pin) clReleaseMemObject(pin);
    *prep_ms = median(prep);
    return n / median(t) / 1e6;
}

int main(int argc, char **argv) {
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL)) /* a CPU device where there is no GPU */
        CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char pname[256];
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    size_t big_chunk = (size_t)16 << 20;
    double t0 = now_ms();
    for (int k = 0; k < 2; k++) {
        stage_mem[k] = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, big_chunk, NULL, &err);
        CHECK(err);
        stage_ptr[k] = clEnqueueMapBuffer(q, stage_mem[k], CL_TRUE, CL_MAP_WRITE, 0, big_chunk, 0, NULL, NULL, &err);
        CHECK(err);
    }
    for (int k = 0; k < MAX_THREADS; k++) {
        par_q[k] = clCreateCommandQueue(ctx, dev, 0, &err);
        CHECK(err);
    }
    printf("firstupload: platform %s; staging buffers (2 x 16 MiB) made in %.2f ms\n", pname, now_ms() - t0);
    printf("%-5s %7s %7s %8s %6s %8s %8s %8s %8s %6s %6s %6s %8s\n", "MiB", "plain", "huge", "prealloc", "prep",
           "stage1/4", "stage4/4", "stage4/16", "stage8/8", "par2", "par4", "par8", "pincopy");
    static const size_t def[] = {16, 64, 128};
    int count = argc > 1 ? argc - 1 : 3;
    for (int i = 0; i < count; i++) {
        size_t mb = argc > 1 ? strtoul(argv[i + 1], NULL, 10) : def[i], n = mb << 20;
        double prep, unused;
        double plain = way(PLAIN, n, 0, 0, &unused), huge = way(HUGE, n, 0, 0, &unused);
        double pre = way(PREALLOC, n, 0, 0, &prep);
        double s14 = way(STAGE, n, (size_t)4 << 20, 1, &unused), s44 = way(STAGE, n, (size_t)4 << 20, 4, &unused);
        double s416 = way(STAGE, n, (size_t)16 << 20, 4, &unused), s88 = way(STAGE, n, (size_t)8 << 20, 8, &unused);
        double p2 = way(PARALLEL, n, 0, 2, &unused), p4 = way(PARALLEL, n, 0, 4, &unused);
        double p8 = way(PARALLEL, n, 0, 8, &unused), pc = way(PINCOPY, n, 0, 0, &unused);
        printf("%-5zu %7.2f %7.2f %8.2f %6.2f %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f %6.2f %8.2f\n", mb, plain, huge, pre, prep,
               s14, s44, s416, s88, p2, p4, p8, pc);
    }
    if (bad) printf("firstupload: FAILED: a buffer read back other bytes than were written\n");
    return bad;
}
