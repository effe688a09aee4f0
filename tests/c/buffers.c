/* Buffers through the OpenCL API: every clCreateBuffer flag combination and its errors,
 * read/write/copy and their rect forms, fill with every pattern size, map/unmap, sub-buffers,
 * info queries, destructor callbacks, events/profiling/user-event chains with memory commands,
 * migration, large (staged) transfers, and multi-device contexts when there are several GPUs.
 *
 * Runs on cudacl by default, or on the platform named by $CL_PLATFORM_NAME (e.g. "NVIDIA").
 * Under tests/fakecuda (a fake CUDA driver, not a GPU) it also checks, through the fake
 * driver's counters, which copy paths were taken (zero-copy, pinned, staged).
 *
 *   ./buffers               all checks on the first GPU
 *   ./buffers alloc-limit   expects a 64 MiB buffer to fail with CL_MEM_OBJECT_ALLOCATION_FAILURE
 *                           (run with FAKECUDA_MEM_LIMIT=33554432 under the fake driver)
 */
#include "common.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "fakecuda_hooks.h"

static cl_platform_id platform;
static cl_device_id device;
static cl_context ctx;
static cl_command_queue q;     /* in order */
static cl_command_queue qprof; /* profiling */
static int on_cudacl;

/* ------------------------------------------------------------------ fake driver counters */

static void (*fake_stats)(struct fakecuda_stats *);

static void find_fake_driver(void) {
    const char *names[] = {"libcuda.so", "libcuda.so.1"};
    for (int i = 0; i < 2 && !fake_stats; i++) {
        void *h = dlopen(names[i], RTLD_NOLOAD | RTLD_NOW);
        if (h) fake_stats = (void (*)(struct fakecuda_stats *))dlsym(h, "fakecuda_stats");
    }
}

static struct fakecuda_stats stats_now(void) {
    struct fakecuda_stats s;
    memset(&s, 0, sizeof s);
    if (fake_stats) fake_stats(&s);
    return s;
}

static int integrated(void) {
    cl_bool b = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof b, &b, NULL);
    return b == CL_TRUE;
}

/* ------------------------------------------------------------------ helpers */

static void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

static int same(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return i;
    return n;
}

static cl_mem make(cl_mem_flags flags, size_t size, void *host, cl_int *err) {
    return clCreateBuffer(ctx, flags, size, host, err);
}

static int read_all(cl_mem m, void *dst, size_t n) {
    return clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, dst, 0, NULL, NULL);
}

/* ------------------------------------------------------------------ creation */

static void test_create_errors(void) {
    cl_int err;
    char host[64];
    cl_mem m;
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);

    m = make(CL_MEM_READ_WRITE, 0, NULL, &err);
    CHECK(!m && err == CL_INVALID_BUFFER_SIZE, "size 0: err %d", err);
    m = make(CL_MEM_READ_WRITE, (size_t)max_alloc + 1, NULL, &err);
    CHECK(!m && err == CL_INVALID_BUFFER_SIZE, "size > max alloc: err %d", err);
    m = make(CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "two access flags: err %d", err);
    m = make(CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "write+read only: err %d", err);
    m = make(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "use+copy: err %d", err);
    m = make(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "use+alloc: err %d", err);
    m = make(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "host read+write only: err %d", err);
    m = make(CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "host no access+read only: err %d", err);
    m = make((cl_mem_flags)1 << 40, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_VALUE, "unknown flag: err %d", err);
    m = make(CL_MEM_USE_HOST_PTR, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_HOST_PTR, "use without ptr: err %d", err);
    m = make(CL_MEM_COPY_HOST_PTR, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_HOST_PTR, "copy without ptr: err %d", err);
    m = make(CL_MEM_READ_WRITE, 64, host, &err);
    CHECK(!m && err == CL_INVALID_HOST_PTR, "ptr without use/copy: err %d", err);
    m = make(CL_MEM_ALLOC_HOST_PTR, 64, host, &err);
    CHECK(!m && err == CL_INVALID_HOST_PTR, "alloc with ptr: err %d", err);
    m = clCreateBuffer(NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_CONTEXT, "NULL context: err %d", err);

    /* OpenCL 3.0's form: NULL or empty properties behave as clCreateBuffer. */
    cl_mem_properties empty[] = {0};
    m = clCreateBufferWithProperties(ctx, NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(m && err == CL_SUCCESS, "WithProperties(NULL): err %d", err);
    if (m) clReleaseMemObject(m);
    m = clCreateBufferWithProperties(ctx, empty, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(m && err == CL_SUCCESS, "WithProperties(empty): err %d", err);
    if (m) clReleaseMemObject(m);
    cl_mem_properties bogus[] = {0x7777, 1, 0};
    m = clCreateBufferWithProperties(ctx, bogus, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(!m && err == CL_INVALID_PROPERTY, "WithProperties(bogus): err %d", err);
}

/* Every valid combination of access x host-pointer x host-access flags: create, check the
 * initial data where defined, write, read back (or the CL_INVALID_OPERATION the host-access
 * flags demand), and map. */
static void test_flag_matrix(void) {
    const cl_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY};
    const cl_mem_flags hostp[] = {0, CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
                                  CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
    const cl_mem_flags hacc[] = {0, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS};
    const size_t n = 4096 + 100;
    unsigned char *init = malloc(n), *data = malloc(n), *back = malloc(n);
    int combos = 0;
    for (int a = 0; a < 4; a++)
        for (int h = 0; h < 5; h++)
            for (int x = 0; x < 4; x++) {
                cl_mem_flags f = access[a] | hostp[h] | hacc[x];
                unsigned char *host = NULL;
                int has_ptr = (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
                if (has_ptr) {
                    host = malloc(n);
                    fill_pattern(host, n, (unsigned)(a * 100 + h * 10 + x));
                    memcpy(init, host, n);
                }
                cl_int err;
                cl_mem m = make(f, n, host, &err);
                CHECK(m && err == CL_SUCCESS, "flags 0x%llx: err %d", (unsigned long long)f, err);
                if (!m) {
                    free(host);
                    continue;
                }
                combos++;
                cl_mem_flags got = 0;
                clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof got, &got, NULL);
                CHECK((got & f) == f, "flags 0x%llx reported 0x%llx", (unsigned long long)f, (unsigned long long)got);
                int can_read = !(f & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
                int can_write = !(f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
                if (has_ptr && can_read) {
                    memset(back, 0, n);
                    EXPECT(read_all(m, back, n), CL_SUCCESS);
                    CHECK(same(back, init, n), "flags 0x%llx: initial data differs at %zu", (unsigned long long)f, first_diff(back, init, n));
                }
                fill_pattern(data, n, 99 + (unsigned)combos);
                cl_int werr = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n, data, 0, NULL, NULL);
                CHECK(werr == (can_write ? CL_SUCCESS : CL_INVALID_OPERATION), "flags 0x%llx write: %d", (unsigned long long)f, werr);
                cl_int rerr = clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, back, 0, NULL, NULL);
                CHECK(rerr == (can_read ? CL_SUCCESS : CL_INVALID_OPERATION), "flags 0x%llx read: %d", (unsigned long long)f, rerr);
                if (can_read && can_write)
                    CHECK(same(back, data, n), "flags 0x%llx: read after write differs at %zu", (unsigned long long)f, first_diff(back, data, n));
                /* Map: reading needs host read access, writing host write access. */
                cl_int merr;
                void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, n, 0, NULL, NULL, &merr);
                CHECK((merr == CL_SUCCESS) == (can_read != 0), "flags 0x%llx map read: %d", (unsigned long long)f, merr);
                if (p) {
                    if (can_write) CHECK(same(p, data, n), "flags 0x%llx: mapped data differs", (unsigned long long)f);
                    if (f & CL_MEM_USE_HOST_PTR) CHECK(p == host, "USE_HOST_PTR map returned %p, host_ptr %p", p, (void *)host);
                    EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
                }
                p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n, 0, NULL, NULL, &merr);
                CHECK((merr == CL_SUCCESS) == (can_write != 0), "flags 0x%llx map write: %d", (unsigned long long)f, merr);
                if (p) {
                    memset(p, 0x3c, n);
                    EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
                    if (can_read) {
                        EXPECT(read_all(m, back, n), CL_SUCCESS);
                        CHECK(back[0] == 0x3c && back[n - 1] == 0x3c && back[n / 2] == 0x3c, "flags 0x%llx: unmap did not write back", (unsigned long long)f);
                    }
                }
                clFinish(q);
                EXPECT(clReleaseMemObject(m), CL_SUCCESS);
                free(host);
            }
    CHECK(combos == 4 * 5 * 4, "created %d combinations", combos);
    free(init);
    free(data);
    free(back);
}

/* CL_MEM_USE_HOST_PTR: the application's memory holds the latest bits once mapped. */
static void test_use_host_ptr(void) {
    const size_t n = 1 << 16;
    /* page-aligned: what zero-copy needs (cudacl: 128 bytes, CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE) */
    unsigned char *host = aligned_alloc(4096, n), *data = malloc(n), *back = malloc(n), *model = malloc(n);
    fill_pattern(host, n, 5);
    memcpy(model, host, n);
    cl_int err;
    cl_mem m = make(CL_MEM_USE_HOST_PTR, n, host, &err);
    CHECK(m != NULL, "create: %d", err);
    if (!m) return;
    void *hp = NULL;
    clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL);
    CHECK(hp == host, "CL_MEM_HOST_PTR %p != %p", hp, (void *)host);
    fill_pattern(data, n, 6);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 100, n - 200, data + 100, 0, NULL, NULL), CL_SUCCESS);
    memcpy(model + 100, data + 100, n - 200);
    struct fakecuda_stats s0 = stats_now();
    unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 64, 1024, 0, NULL, NULL, &err);
    struct fakecuda_stats s1 = stats_now();
    CHECK(p == host + 64, "map returned %p, want host_ptr+64 %p", (void *)p, (void *)(host + 64));
    CHECK(same(host + 64, model + 64, 1024), "host_ptr does not hold the latest bits after map");
    if (fake_stats && integrated() && !getenv("FAKECUDA_NO_HOST_REGISTER") && !getenv("CUDACL_NO_HOST_REGISTER")) CHECK(s1.dtoh_calls == s0.dtoh_calls, "zero-copy map copied %llu times", s1.dtoh_calls - s0.dtoh_calls);
    if (p) {
        memset(p, 0x77, 16);
        memset(model + 64, 0x77, 16);
        EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    }
    EXPECT(read_all(m, back, n), CL_SUCCESS);
    CHECK(same(back, model, n), "USE_HOST_PTR data after map-write differs at %zu", first_diff(back, model, n));
    clReleaseMemObject(m);
    free(host);
    free(data);
    free(back);
    free(model);
}

/* CL_MEM_ALLOC_HOST_PTR: maps return pinned memory; data goes both ways. */
static void test_alloc_host_ptr(void) {
    const size_t n = 1 << 20;
    unsigned char *data = malloc(n), *back = malloc(n);
    cl_int err;
    cl_mem m = make(CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
    CHECK(m != NULL, "create: %d", err);
    if (!m) return;
    unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    CHECK(p != NULL, "map: %d", err);
    if (!p) return;
    fill_pattern(p, n, 8);
    memcpy(data, p, n);
    EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(read_all(m, back, n), CL_SUCCESS);
    CHECK(same(back, data, n), "ALLOC_HOST_PTR: read after map-write differs at %zu", first_diff(back, data, n));
    fill_pattern(data, n, 9);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n, data, 0, NULL, NULL), CL_SUCCESS);
    p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, n, 0, NULL, NULL, &err);
    CHECK(p && same(p, data, n), "ALLOC_HOST_PTR: map-read after write differs");
    if (p) {
        /* The mapped pointer is pinned memory: a write from it goes straight to the device. */
        cl_mem other = make(CL_MEM_READ_WRITE, n, NULL, &err);
        struct fakecuda_stats s0 = stats_now();
        EXPECT(clEnqueueWriteBuffer(q, other, CL_TRUE, 0, n, p, 0, NULL, NULL), CL_SUCCESS);
        struct fakecuda_stats s1 = stats_now();
        if (fake_stats && on_cudacl) CHECK(s1.htod_calls - s0.htod_calls == 1, "pinned write took %llu copies", s1.htod_calls - s0.htod_calls);
        EXPECT(read_all(other, back, n), CL_SUCCESS);
        CHECK(same(back, data, n), "write from pinned pointer differs");
        clReleaseMemObject(other);
        EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    }
    clFinish(q);
    clReleaseMemObject(m);
    free(data);
    free(back);
}

/* ------------------------------------------------------------------ read/write/copy */

static void test_read_write_copy(void) {
    const size_t n = 10000;
    unsigned char *a = malloc(n), *b = malloc(n), *back = malloc(n);
    fill_pattern(a, n, 1);
    fill_pattern(b, n, 2);
    cl_int err;
    cl_mem x = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, a, &err);
    cl_mem y = make(CL_MEM_READ_WRITE, n, NULL, &err);
    /* partial writes and reads at offsets */
    EXPECT(clEnqueueWriteBuffer(q, x, CL_TRUE, 1000, 500, b + 1000, 0, NULL, NULL), CL_SUCCESS);
    memcpy(a + 1000, b + 1000, 500);
    EXPECT(clEnqueueReadBuffer(q, x, CL_TRUE, 999, 502, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(back, a + 999, 502), "partial write/read");
    /* errors */
    EXPECT(clEnqueueReadBuffer(q, x, CL_TRUE, n - 10, 11, back, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBuffer(q, x, CL_TRUE, n, 1, b, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(q, x, CL_TRUE, 0, 10, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(q, x, CL_TRUE, 0, 0, back, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 10, back, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadBuffer(NULL, x, CL_TRUE, 0, 10, back, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReadBuffer(q, x, CL_TRUE, 0, 10, back, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* copy whole, partial, errors */
    EXPECT(clEnqueueCopyBuffer(q, x, y, 0, 0, n, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(read_all(y, back, n), CL_SUCCESS);
    CHECK(same(back, a, n), "copy whole differs at %zu", first_diff(back, a, n));
    EXPECT(clEnqueueCopyBuffer(q, x, y, 10, 5000, 3000, 0, NULL, NULL), CL_SUCCESS);
    memcpy(back, a, n);
    memcpy(back + 5000, a + 10, 3000);
    unsigned char *got = malloc(n);
    EXPECT(read_all(y, got, n), CL_SUCCESS);
    CHECK(same(got, back, n), "copy partial differs at %zu", first_diff(got, back, n));
    EXPECT(clEnqueueCopyBuffer(q, x, x, 0, 100, 200, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyBuffer(q, x, x, 0, 5000, 200, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueCopyBuffer(q, x, y, n - 5, 0, 10, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBuffer(q, x, y, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(read_all(x, got, n), CL_SUCCESS);
    memcpy(a + 5000, a, 200);
    CHECK(same(got, a, n), "copy within one buffer differs at %zu", first_diff(got, a, n));
    /* non-blocking forms with events */
    cl_event ev[3];
    fill_pattern(b, n, 3);
    EXPECT(clEnqueueWriteBuffer(q, x, CL_FALSE, 0, n, b, 0, NULL, &ev[0]), CL_SUCCESS);
    EXPECT(clEnqueueCopyBuffer(q, x, y, 0, 0, n, 1, &ev[0], &ev[1]), CL_SUCCESS);
    memset(got, 0, n);
    EXPECT(clEnqueueReadBuffer(q, y, CL_FALSE, 0, n, got, 1, &ev[1], &ev[2]), CL_SUCCESS);
    EXPECT(clWaitForEvents(3, ev), CL_SUCCESS);
    CHECK(same(got, b, n), "non-blocking chain differs at %zu", first_diff(got, b, n));
    cl_command_type t;
    clGetEventInfo(ev[0], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    CHECK(t == CL_COMMAND_WRITE_BUFFER, "write event type %u", t);
    clGetEventInfo(ev[1], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    CHECK(t == CL_COMMAND_COPY_BUFFER, "copy event type %u", t);
    clGetEventInfo(ev[2], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    CHECK(t == CL_COMMAND_READ_BUFFER, "read event type %u", t);
    for (int i = 0; i < 3; i++) clReleaseEvent(ev[i]);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    free(a);
    free(b);
    free(back);
    free(got);
}

/* Transfers large enough to take the pipelined staging path (and sizes that are not multiples
 * of the chunk size), blocking and not. */
static void test_large_transfers(void) {
    const size_t sizes[] = {(16u << 20) + 123, (3u << 20) + 1, 40u << 20};
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i];
        unsigned char *a = malloc(n), *back = malloc(n);
        fill_pattern(a, n, 11 + (unsigned)i);
        cl_int err;
        cl_mem m = make(CL_MEM_READ_WRITE, n, NULL, &err);
        CHECK(m != NULL, "create %zu: %d", n, err);
        if (!m) continue;
        struct fakecuda_stats s0 = stats_now();
        EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n, a, 0, NULL, NULL), CL_SUCCESS);
        struct fakecuda_stats s1 = stats_now();
        if (fake_stats && on_cudacl && !integrated() && n >= (16u << 20))
            CHECK(s1.htod_calls - s0.htod_calls > 1, "a %zu-byte pageable write was not staged (%llu copies)", n, s1.htod_calls - s0.htod_calls);
        memset(back, 0, n);
        EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, back, 0, NULL, NULL), CL_SUCCESS);
        CHECK(same(back, a, n), "large blocking round trip (%zu) differs at %zu", n, first_diff(back, a, n));
        /* non-blocking write, then change the source after the event: the buffer keeps the old data */
        fill_pattern(a, n, 21 + (unsigned)i);
        cl_event e;
        EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n, a, 0, NULL, &e), CL_SUCCESS);
        EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
        clReleaseEvent(e);
        memset(back, 0, n);
        EXPECT(clEnqueueReadBuffer(q, m, CL_FALSE, 0, n, back, 0, NULL, &e), CL_SUCCESS);
        EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
        clReleaseEvent(e);
        CHECK(same(back, a, n), "large non-blocking round trip (%zu) differs at %zu", n, first_diff(back, a, n));
        /* unaligned host pointers and offsets */
        EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 3, n - 7, a + 1, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 3, n - 7, back + 5, 0, NULL, NULL), CL_SUCCESS);
        CHECK(same(back + 5, a + 1, n - 7), "large unaligned round trip differs");
        /* COPY_HOST_PTR of a large pageable buffer */
        cl_mem c = make(CL_MEM_COPY_HOST_PTR, n, a, &err);
        CHECK(c != NULL, "create copy %zu: %d", n, err);
        if (c) {
            EXPECT(read_all(c, back, n), CL_SUCCESS);
            CHECK(same(back, a, n), "large COPY_HOST_PTR differs at %zu", first_diff(back, a, n));
            clReleaseMemObject(c);
        }
        clReleaseMemObject(m);
        free(a);
        free(back);
    }
}

/* ------------------------------------------------------------------ rect */

/* Reference rect copy between two byte arrays with pitches. */
static void ref_rect(unsigned char *dst, const size_t *dorg, size_t drow, size_t dslice, const unsigned char *src, const size_t *sorg, size_t srow,
                     size_t sslice, const size_t *region) {
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            memcpy(dst + (dorg[2] + z) * dslice + (dorg[1] + y) * drow + dorg[0], src + (sorg[2] + z) * sslice + (sorg[1] + y) * srow + sorg[0], region[0]);
}

static void test_rect(void) {
    const size_t bn = 64 * 1024;
    unsigned char *init = malloc(bn), *model = malloc(bn), *got = malloc(bn), *host = malloc(bn), *hmodel = malloc(bn);
    fill_pattern(init, bn, 31);
    fill_pattern(host, bn, 32);
    cl_int err;
    cl_mem m = make(CL_MEM_COPY_HOST_PTR, bn, init, &err);
    memcpy(model, init, bn);
    struct {
        size_t borg[3], horg[3], region[3], brow, bslice, hrow, hslice;
    } cases[] = {
        {{0, 0, 0}, {0, 0, 0}, {16, 8, 4}, 0, 0, 0, 0},            /* tight defaults */
        {{3, 2, 1}, {1, 1, 1}, {10, 5, 3}, 40, 400, 20, 200},      /* offsets and pitches */
        {{5, 0, 0}, {0, 3, 0}, {7, 9, 1}, 33, 0, 17, 0},            /* 2-D, odd pitches */
        {{1, 1, 1}, {2, 2, 2}, {9, 4, 3}, 24, 130, 16, 70},         /* slice pitch not a multiple of row pitch */
        {{0, 0, 0}, {0, 0, 0}, {1000, 1, 1}, 0, 0, 0, 0},           /* 1-D */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t br = cases[c].brow ? cases[c].brow : cases[c].region[0];
        size_t bs = cases[c].bslice ? cases[c].bslice : cases[c].region[1] * br;
        size_t hr = cases[c].hrow ? cases[c].hrow : cases[c].region[0];
        size_t hs = cases[c].hslice ? cases[c].hslice : cases[c].region[1] * hr;
        /* write rect: host -> buffer */
        EXPECT(clEnqueueWriteBufferRect(q, m, CL_TRUE, cases[c].borg, cases[c].horg, cases[c].region, cases[c].brow, cases[c].bslice, cases[c].hrow,
                                        cases[c].hslice, host, 0, NULL, NULL),
               CL_SUCCESS);
        ref_rect(model, cases[c].borg, br, bs, host, cases[c].horg, hr, hs, cases[c].region);
        EXPECT(read_all(m, got, bn), CL_SUCCESS);
        CHECK(same(got, model, bn), "write rect case %zu differs at %zu", c, first_diff(got, model, bn));
        /* read rect: buffer -> host */
        memset(got, 0xEE, bn);
        memset(hmodel, 0xEE, bn);
        EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, cases[c].borg, cases[c].horg, cases[c].region, cases[c].brow, cases[c].bslice, cases[c].hrow,
                                       cases[c].hslice, got, 0, NULL, NULL),
               CL_SUCCESS);
        ref_rect(hmodel, cases[c].horg, hr, hs, model, cases[c].borg, br, bs, cases[c].region);
        CHECK(same(got, hmodel, bn), "read rect case %zu differs at %zu", c, first_diff(got, hmodel, bn));
    }
    /* copy rect between buffers and within one buffer */
    cl_mem d = make(CL_MEM_READ_WRITE, bn, NULL, &err);
    EXPECT(clEnqueueCopyBuffer(q, m, d, 0, 0, bn, 0, NULL, NULL), CL_SUCCESS);
    unsigned char *dmodel = malloc(bn);
    memcpy(dmodel, model, bn);
    size_t so[3] = {2, 3, 1}, dorg[3] = {7, 1, 2}, region[3] = {12, 6, 3};
    EXPECT(clEnqueueCopyBufferRect(q, m, d, so, dorg, region, 32, 512, 48, 600, 0, NULL, NULL), CL_SUCCESS);
    ref_rect(dmodel, dorg, 48, 600, model, so, 32, 512, region);
    EXPECT(read_all(d, got, bn), CL_SUCCESS);
    CHECK(same(got, dmodel, bn), "copy rect differs at %zu", first_diff(got, dmodel, bn));
    size_t s1[3] = {0, 0, 0}, d1[3] = {0, 0, 5}, r1[3] = {16, 16, 2};
    EXPECT(clEnqueueCopyBufferRect(q, d, d, s1, d1, r1, 64, 1024, 64, 1024, 0, NULL, NULL), CL_SUCCESS);
    ref_rect(dmodel, d1, 64, 1024, dmodel, s1, 64, 1024, r1);
    EXPECT(read_all(d, got, bn), CL_SUCCESS);
    CHECK(same(got, dmodel, bn), "copy rect in one buffer differs at %zu", first_diff(got, dmodel, bn));
    /* errors */
    size_t zero_region[3] = {0, 1, 1}, big_region[3] = {bn, 2, 1}, o0[3] = {0, 0, 0}, r[3] = {8, 8, 1};
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, o0, o0, zero_region, 0, 0, 0, 0, got, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, o0, o0, big_region, 0, 0, 0, 0, got, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, o0, o0, r, 4, 0, 0, 0, got, 0, NULL, NULL), CL_INVALID_VALUE);    /* row pitch < width */
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, o0, o0, r, 8, 32, 0, 0, got, 0, NULL, NULL), CL_INVALID_VALUE);   /* slice < height*row */
    EXPECT(clEnqueueWriteBufferRect(q, m, CL_TRUE, o0, o0, r, 0, 0, 4, 0, host, 0, NULL, NULL), CL_INVALID_VALUE); /* host row pitch */
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, NULL, o0, r, 0, 0, 0, 0, got, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(q, m, CL_TRUE, o0, o0, r, 0, 0, 0, 0, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t ov_s[3] = {0, 0, 0}, ov_d[3] = {4, 4, 0};
    EXPECT(clEnqueueCopyBufferRect(q, d, d, ov_s, ov_d, r, 64, 1024, 64, 1024, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyBufferRect(q, d, d, ov_s, ov_d, r, 64, 1024, 32, 1024, 0, NULL, NULL), CL_INVALID_VALUE);
    /* side by side in the same rows: interleaved byte ranges, but no overlap */
    size_t side_s[3] = {0, 0, 0}, side_d[3] = {32, 0, 0}, side_r[3] = {16, 8, 2};
    EXPECT(clEnqueueCopyBufferRect(q, d, d, side_s, side_d, side_r, 64, 1024, 64, 1024, 0, NULL, NULL), CL_SUCCESS);
    ref_rect(dmodel, side_d, 64, 1024, dmodel, side_s, 64, 1024, side_r);
    EXPECT(read_all(d, got, bn), CL_SUCCESS);
    CHECK(same(got, dmodel, bn), "side-by-side copy rect differs at %zu", first_diff(got, dmodel, bn));
    clReleaseMemObject(m);
    clReleaseMemObject(d);
    free(init);
    free(model);
    free(got);
    free(host);
    free(hmodel);
    free(dmodel);
}

/* ------------------------------------------------------------------ fill */

static void test_fill(void) {
    const size_t n = 1 << 16;
    unsigned char *got = malloc(n), *model = malloc(n);
    cl_int err;
    cl_mem m = make(CL_MEM_READ_WRITE, n, NULL, &err);
    memset(model, 0, n);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n, model, 0, NULL, NULL), CL_SUCCESS);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pat[128];
        for (size_t i = 0; i < ps; i++) pat[i] = (unsigned char)(0x11 * (ps & 0xf) + i * 3 + 1);
        size_t off = ps * 3, len = ps * (1000 / ps + 7);
        EXPECT(clEnqueueFillBuffer(q, m, pat, ps, off, len, 0, NULL, NULL), CL_SUCCESS);
        for (size_t i = 0; i < len; i++) model[off + i] = pat[i % ps];
        EXPECT(read_all(m, got, n), CL_SUCCESS);
        CHECK(same(got, model, n), "fill pattern size %zu differs at %zu", ps, first_diff(got, model, n));
        /* the whole buffer, with an event */
        cl_event e;
        EXPECT(clEnqueueFillBuffer(q, m, pat, ps, 0, n, 0, NULL, &e), CL_SUCCESS);
        EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
        cl_command_type t = 0;
        clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
        CHECK(t == CL_COMMAND_FILL_BUFFER, "fill event type %u", t);
        clReleaseEvent(e);
        for (size_t i = 0; i < n; i++) model[i] = pat[i % ps];
        EXPECT(read_all(m, got, n), CL_SUCCESS);
        CHECK(same(got, model, n), "full fill pattern size %zu differs at %zu", ps, first_diff(got, model, n));
    }
    /* patterns that repeat a shorter unit */
    unsigned int four[4] = {0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef};
    EXPECT(clEnqueueFillBuffer(q, m, four, 16, 16, 160, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < 160; i++) model[16 + i] = ((unsigned char *)four)[i % 16];
    EXPECT(read_all(m, got, n), CL_SUCCESS);
    CHECK(same(got, model, n), "repeating 16-byte fill differs at %zu", first_diff(got, model, n));
    unsigned char pat[4] = {1, 2, 3, 4};
    EXPECT(clEnqueueFillBuffer(q, m, pat, 3, 0, 9, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, m, pat, 256, 0, 256, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, m, pat, 4, 2, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, m, pat, 4, 0, 6, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, m, pat, 4, n - 4, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, m, NULL, 4, 0, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    /* application memory that is not aligned (zero-copy buffers use it in place) */
    unsigned char *raw = malloc(4096 + 8);
    cl_mem u = make(CL_MEM_USE_HOST_PTR, 4096, raw + 1, &err);
    CHECK(u != NULL, "unaligned USE_HOST_PTR: %d", err);
    if (u) {
        for (size_t ps = 1; ps <= 8; ps *= 2) {
            unsigned char pt[8] = {9, 8, 7, 6, 5, 4, 3, 2};
            EXPECT(clEnqueueFillBuffer(q, u, pt, ps, ps, 4096 - 2 * ps, 0, NULL, NULL), CL_SUCCESS);
            unsigned char *ub = malloc(4096);
            EXPECT(clEnqueueReadBuffer(q, u, CL_TRUE, ps, 4096 - 2 * ps, ub, 0, NULL, NULL), CL_SUCCESS);
            int ok = 1;
            for (size_t i = 0; i < 4096 - 2 * ps; i++) ok &= ub[i] == pt[i % ps];
            CHECK(ok, "fill of unaligned USE_HOST_PTR memory, pattern size %zu", ps);
            free(ub);
        }
        clReleaseMemObject(u);
    }
    free(raw);
    /* a large fill through a sub-buffer-sized region */
    cl_mem big = make(CL_MEM_READ_WRITE, 8u << 20, NULL, &err);
    double dp = 3.25;
    EXPECT(clEnqueueFillBuffer(q, big, &dp, 8, 0, 8u << 20, 0, NULL, NULL), CL_SUCCESS);
    double *bd = malloc(8u << 20);
    EXPECT(clEnqueueReadBuffer(q, big, CL_TRUE, 0, 8u << 20, bd, 0, NULL, NULL), CL_SUCCESS);
    int ok = 1;
    for (size_t i = 0; i < (1u << 20); i++) ok &= bd[i] == 3.25;
    CHECK(ok, "8 MiB double fill");
    free(bd);
    clReleaseMemObject(big);
    clReleaseMemObject(m);
    free(got);
    free(model);
}

/* ------------------------------------------------------------------ map */

static void test_map(void) {
    const size_t n = 1 << 18;
    unsigned char *data = malloc(n), *got = malloc(n);
    fill_pattern(data, n, 41);
    cl_int err;
    cl_mem m = make(CL_MEM_COPY_HOST_PTR, n, data, &err);
    cl_event e;
    unsigned char *p = clEnqueueMapBuffer(q, m, CL_FALSE, CL_MAP_READ, 1000, 5000, 0, NULL, &e, &err);
    CHECK(p != NULL && err == CL_SUCCESS, "non-blocking map: %d", err);
    EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
    cl_command_type t = 0;
    clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    CHECK(t == CL_COMMAND_MAP_BUFFER, "map event type %u", t);
    clReleaseEvent(e);
    if (p) CHECK(same(p, data + 1000, 5000), "mapped region differs");
    cl_uint count = 99;
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count, NULL);
    CHECK(count == 1, "map count %u", count);
    /* a second mapping of another region, for writing */
    unsigned char *w = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 8192, 4096, 0, NULL, NULL, &err);
    CHECK(w != NULL, "map write: %d", err);
    if (w) {
        CHECK(same(w, data + 8192, 4096), "CL_MAP_WRITE must show the current contents");
        memset(w, 0x5a, 4096);
        memset(data + 8192, 0x5a, 4096);
    }
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count, NULL);
    CHECK(count == 2, "map count %u", count);
    EXPECT(clEnqueueUnmapMemObject(q, m, data, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueUnmapMemObject(q, m, w, 0, NULL, &e), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
    clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    CHECK(t == CL_COMMAND_UNMAP_MEM_OBJECT, "unmap event type %u", t);
    clReleaseEvent(e);
    if (p) EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    clFinish(q);
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count, NULL);
    CHECK(count == 0, "map count after unmaps %u", count);
    EXPECT(read_all(m, got, n), CL_SUCCESS);
    CHECK(same(got, data, n), "data after map-write differs at %zu", first_diff(got, data, n));
    /* write-invalidate: the host writes everything in the region */
    w = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n, 0, NULL, NULL, &err);
    CHECK(w != NULL, "map invalidate: %d", err);
    if (w) {
        fill_pattern(w, n, 42);
        fill_pattern(data, n, 42);
        EXPECT(clEnqueueUnmapMemObject(q, m, w, 0, NULL, NULL), CL_SUCCESS);
    }
    EXPECT(read_all(m, got, n), CL_SUCCESS);
    CHECK(same(got, data, n), "data after invalidate map differs at %zu", first_diff(got, data, n));
    /* whole-buffer maps between device-side changes always show the latest data */
    unsigned char srcdata[4096];
    fill_pattern(srcdata, sizeof srcdata, 44);
    cl_mem src = make(CL_MEM_COPY_HOST_PTR, 4096, srcdata, &err);
    for (int step = 0; step < 4; step++) {
        unsigned char *whole = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, n, 0, NULL, NULL, &err);
        CHECK(whole && same(whole, data, n), "whole map before step %d differs", step);
        if (whole) EXPECT(clEnqueueUnmapMemObject(q, m, whole, 0, NULL, NULL), CL_SUCCESS);
        if (step == 0) {
            fill_pattern(got, 1000, 43);
            EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 300, 1000, got, 0, NULL, NULL), CL_SUCCESS);
            memcpy(data + 300, got, 1000);
        } else if (step == 1) {
            EXPECT(clEnqueueCopyBuffer(q, src, m, 0, 5000, 4096, 0, NULL, NULL), CL_SUCCESS);
            memcpy(data + 5000, srcdata, 4096);
        } else if (step == 2) {
            unsigned int v = 0x01020304;
            EXPECT(clEnqueueFillBuffer(q, m, &v, 4, 8, 64, 0, NULL, NULL), CL_SUCCESS);
            for (int i = 0; i < 16; i++) memcpy(data + 8 + 4 * i, &v, 4);
        }
        clFinish(q);
    }
    clReleaseMemObject(src);
    /* a whole-buffer write mapping, then device work reading it */
    w = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    if (w) {
        CHECK(same(w, data, n), "whole write map shows the current data");
        w[n - 1] ^= 0xff;
        data[n - 1] ^= 0xff;
        EXPECT(clEnqueueUnmapMemObject(q, m, w, 0, NULL, NULL), CL_SUCCESS);
    }
    cl_mem m2 = make(CL_MEM_READ_WRITE, n, NULL, &err);
    EXPECT(clEnqueueCopyBuffer(q, m, m2, 0, 0, n, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(read_all(m2, got, n), CL_SUCCESS);
    CHECK(same(got, data, n), "copy after whole-buffer map-write differs at %zu", first_diff(got, data, n));
    clReleaseMemObject(m2);
    /* the same region mapped twice */
    unsigned char *a1 = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
    unsigned char *a2 = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
    CHECK(a1 && a2, "double map");
    if (a1) EXPECT(clEnqueueUnmapMemObject(q, m, a1, 0, NULL, NULL), CL_SUCCESS);
    if (a2) EXPECT(clEnqueueUnmapMemObject(q, m, a2, 0, NULL, NULL), CL_SUCCESS);
    /* errors */
    clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, n - 10, 20, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_VALUE, "map out of bounds: %d", err);
    clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_VALUE, "map size 0: %d", err);
    clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 8, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_VALUE, "map read+invalidate: %d", err);
    clEnqueueMapBuffer(q, m, CL_TRUE, 0x100, 0, 8, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_VALUE, "map unknown flag: %d", err);
    cl_mem wo = make(CL_MEM_HOST_WRITE_ONLY, 64, NULL, &err);
    clEnqueueMapBuffer(q, wo, CL_TRUE, CL_MAP_READ, 0, 8, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_OPERATION, "map read of HOST_WRITE_ONLY: %d", err);
    cl_mem ro = make(CL_MEM_HOST_READ_ONLY, 64, NULL, &err);
    clEnqueueMapBuffer(q, ro, CL_TRUE, CL_MAP_WRITE, 0, 8, 0, NULL, NULL, &err);
    CHECK(err == CL_INVALID_OPERATION, "map write of HOST_READ_ONLY: %d", err);
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    clReleaseMemObject(m);
    free(data);
    free(got);
}

/* ------------------------------------------------------------------ sub-buffers */

static int destructor_log[16], destructor_n;
static void CL_CALLBACK on_destroy(cl_mem m, void *data) {
    (void)m;
    if (destructor_n < 16) destructor_log[destructor_n++] = (int)(intptr_t)data;
}

static void wait_destructors(int want) {
    for (int i = 0; i < 200 && destructor_n < want; i++) usleep(5000);
}

static void test_sub_buffers(void) {
    cl_uint align_bits = 0;
    clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    size_t align = align_bits / 8;
    CHECK(align >= 1, "base addr align %u bits", align_bits);
    if (align < 1) return;
    const size_t n = align * 8;
    unsigned char *host = malloc(n), *got = malloc(n), *data = malloc(n);
    fill_pattern(host, n, 51);
    cl_int err;
    cl_mem parent = make(CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, n, host, &err);
    CHECK(parent != NULL, "parent: %d", err);
    if (!parent) return;
    cl_buffer_region r = {align * 2, align * 3};
    cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    CHECK(sub != NULL && err == CL_SUCCESS, "sub: %d", err);
    if (sub) {
        cl_mem_flags f = 0;
        clGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof f, &f, NULL);
        CHECK((f & CL_MEM_READ_ONLY) && (f & CL_MEM_USE_HOST_PTR) && (f & CL_MEM_HOST_READ_ONLY), "inherited flags 0x%llx", (unsigned long long)f);
        cl_mem assoc = NULL;
        clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL);
        CHECK(assoc == parent, "associated memobject");
        size_t off = 0, size = 0;
        clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof off, &off, NULL);
        clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL);
        CHECK(off == r.origin && size == r.size, "offset %zu size %zu", off, size);
        void *hp = NULL;
        clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL);
        CHECK(hp == host + r.origin, "sub-buffer host ptr %p, want %p", hp, (void *)(host + r.origin));
        EXPECT(clEnqueueReadBuffer(q, sub, CL_TRUE, 0, r.size, got, 0, NULL, NULL), CL_SUCCESS);
        CHECK(same(got, host + r.origin, r.size), "sub-buffer read");
        EXPECT(clEnqueueWriteBuffer(q, sub, CL_TRUE, 0, 4, got, 0, NULL, NULL), CL_INVALID_OPERATION);
        cl_buffer_region r2 = {0, 16};
        clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
        CHECK(err == CL_INVALID_MEM_OBJECT, "sub of sub: %d", err);
        clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
        CHECK(err == CL_INVALID_VALUE, "READ_WRITE sub of READ_ONLY: %d", err);
        clCreateSubBuffer(parent, CL_MEM_HOST_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
        CHECK(err == CL_INVALID_VALUE, "HOST_WRITE_ONLY sub of HOST_READ_ONLY: %d", err);
        clCreateSubBuffer(parent, CL_MEM_COPY_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
        CHECK(err == CL_INVALID_VALUE, "host ptr flag on sub: %d", err);
        clCreateSubBuffer(parent, 0, 0x9999, &r2, &err);
        CHECK(err == CL_INVALID_VALUE, "bad create type: %d", err);
        clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err);
        CHECK(err == CL_INVALID_VALUE, "NULL region: %d", err);
        cl_buffer_region bad = {align * 7, align * 2};
        clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &bad, &err);
        CHECK(err == CL_INVALID_VALUE, "region past end: %d", err);
        cl_buffer_region mis = {align + 4, 16};
        clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis, &err);
        CHECK(err == CL_MISALIGNED_SUB_BUFFER_OFFSET, "misaligned: %d", err);
        cl_buffer_region empty = {0, 0};
        clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty, &err);
        CHECK(err == CL_INVALID_BUFFER_SIZE, "empty region: %d", err);
        clReleaseMemObject(sub);
    }
    clReleaseMemObject(parent);

    /* a read-write parent: writes through one sub-buffer show in the parent and siblings */
    cl_mem p2 = make(CL_MEM_READ_WRITE, n, NULL, &err);
    memset(data, 0, n);
    EXPECT(clEnqueueWriteBuffer(q, p2, CL_TRUE, 0, n, data, 0, NULL, NULL), CL_SUCCESS);
    cl_buffer_region ra = {0, align * 4}, rb = {align * 2, align * 4};
    cl_mem sa = clCreateSubBuffer(p2, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
    cl_mem sb = clCreateSubBuffer(p2, 0, CL_BUFFER_CREATE_TYPE_REGION, &rb, &err);
    CHECK(sa && sb, "two subs: %d", err);
    if (sa && sb) {
        fill_pattern(got, align * 4, 52);
        EXPECT(clEnqueueWriteBuffer(q, sa, CL_TRUE, 0, align * 4, got, 0, NULL, NULL), CL_SUCCESS);
        memcpy(data, got, align * 4);
        unsigned char pat = 0x99;
        EXPECT(clEnqueueFillBuffer(q, sb, &pat, 1, align, align, 0, NULL, NULL), CL_SUCCESS);
        memset(data + align * 3, 0x99, align);
        EXPECT(read_all(p2, got, n), CL_SUCCESS);
        CHECK(same(got, data, n), "parent after sub writes differs at %zu", first_diff(got, data, n));
        EXPECT(clEnqueueCopyBuffer(q, sa, sb, 0, 0, align * 4, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
        EXPECT(clEnqueueCopyBuffer(q, sa, sb, align * 2, 0, align * 2, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
        EXPECT(clEnqueueCopyBuffer(q, sa, sb, 0, align * 3, align, 0, NULL, NULL), CL_SUCCESS);
        memcpy(data + align * 5, data, align);
        EXPECT(clEnqueueCopyBuffer(q, sa, p2, 0, align * 6, align * 2, 0, NULL, NULL), CL_SUCCESS);
        memcpy(data + align * 6, data, align * 2);
        EXPECT(read_all(p2, got, n), CL_SUCCESS);
        CHECK(same(got, data, n), "copy sub -> parent differs at %zu", first_diff(got, data, n));
        unsigned char *mp = clEnqueueMapBuffer(q, sb, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, align, 0, NULL, NULL, &err);
        CHECK(mp != NULL, "map sub: %d", err);
        if (mp) {
            CHECK(same(mp, data + align * 2, align), "mapped sub-buffer differs");
            mp[0] = 0xAB;
            data[align * 2] = 0xAB;
            EXPECT(clEnqueueUnmapMemObject(q, sb, mp, 0, NULL, NULL), CL_SUCCESS);
        }
        EXPECT(read_all(p2, got, n), CL_SUCCESS);
        CHECK(same(got, data, n), "parent after sub map differs at %zu", first_diff(got, data, n));
        /* destructor order: the parent dies after its sub-buffers */
        destructor_n = 0;
        EXPECT(clSetMemObjectDestructorCallback(p2, on_destroy, (void *)1), CL_SUCCESS);
        EXPECT(clSetMemObjectDestructorCallback(p2, on_destroy, (void *)2), CL_SUCCESS);
        EXPECT(clSetMemObjectDestructorCallback(sa, on_destroy, (void *)3), CL_SUCCESS);
        EXPECT(clSetMemObjectDestructorCallback(p2, NULL, NULL), CL_INVALID_VALUE);
        clFinish(q);
        EXPECT(clReleaseMemObject(p2), CL_SUCCESS);
        usleep(20000);
        CHECK(destructor_n == 0, "parent destroyed while sub-buffers live (%d callbacks)", destructor_n);
        EXPECT(clReleaseMemObject(sa), CL_SUCCESS);
        wait_destructors(1);
        CHECK(destructor_n == 1 && destructor_log[0] == 3, "sub-buffer destructor (%d)", destructor_n);
        EXPECT(clReleaseMemObject(sb), CL_SUCCESS);
        wait_destructors(3);
        CHECK(destructor_n == 3 && destructor_log[1] == 2 && destructor_log[2] == 1, "parent destructors in reverse order (%d: %d %d)", destructor_n,
              destructor_log[1], destructor_log[2]);
    }
    free(host);
    free(got);
    free(data);
}

/* ------------------------------------------------------------------ info, retain/release */

static void test_info(void) {
    cl_int err;
    cl_mem m = make(CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, 1234, NULL, &err);
    cl_mem_object_type t = 0;
    EXPECT(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof t, &t, NULL), CL_SUCCESS);
    CHECK(t == CL_MEM_OBJECT_BUFFER, "type %u", t);
    size_t sz = 0, ret = 0;
    EXPECT(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof sz, &sz, &ret), CL_SUCCESS);
    CHECK(sz == 1234 && ret == sizeof(size_t), "size %zu ret %zu", sz, ret);
    cl_context c = NULL;
    clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL);
    CHECK(c == ctx, "context");
    void *hp = (void *)1;
    clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL);
    CHECK(hp == NULL, "host ptr of ALLOC_HOST_PTR buffer %p", hp);
    cl_mem assoc = (cl_mem)1;
    clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL);
    CHECK(assoc == NULL, "associated of a buffer");
    size_t off = 7;
    clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL);
    CHECK(off == 0, "offset %zu", off);
    cl_uint refs = 0;
    clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    CHECK(refs == 1, "refs %u", refs);
    EXPECT(clRetainMemObject(m), CL_SUCCESS);
    clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    CHECK(refs == 2, "refs after retain %u", refs);
    EXPECT(clGetMemObjectInfo(m, CL_MEM_SIZE, 1, &sz, NULL), CL_INVALID_VALUE);
    EXPECT(clGetMemObjectInfo(m, 0x7fff, sizeof sz, &sz, NULL), CL_INVALID_VALUE);
    EXPECT(clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof sz, &sz, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseMemObject(m), CL_SUCCESS);
    EXPECT(clReleaseMemObject(m), CL_SUCCESS);
    EXPECT(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
    /* a buffer released while a command still uses it stays valid until the command is done */
    const size_t n = 1 << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    fill_pattern(a, n, 61);
    cl_mem x = make(CL_MEM_COPY_HOST_PTR, n, a, &err);
    cl_event e;
    EXPECT(clEnqueueReadBuffer(q, x, CL_FALSE, 0, n, b, 0, NULL, &e), CL_SUCCESS);
    EXPECT(clReleaseMemObject(x), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
    CHECK(same(a, b, n), "read of a released buffer");
    clReleaseEvent(e);
    free(a);
    free(b);
}

/* ------------------------------------------------------------------ events, profiling, user events */

static void test_events(void) {
    const size_t n = 1 << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    fill_pattern(a, n, 71);
    cl_int err;
    cl_mem m = make(CL_MEM_READ_WRITE, n, NULL, &err);
    /* profiling timestamps of memory commands */
    cl_event e;
    EXPECT(clEnqueueWriteBuffer(qprof, m, CL_FALSE, 0, n, a, 0, NULL, &e), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
    cl_ulong t[4] = {0};
    cl_profiling_info names[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; i++) EXPECT(clGetEventProfilingInfo(e, names[i], sizeof t[i], &t[i], NULL), CL_SUCCESS);
    CHECK(t[0] && t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3], "profile %llu %llu %llu %llu", (unsigned long long)t[0], (unsigned long long)t[1],
          (unsigned long long)t[2], (unsigned long long)t[3]);
    clReleaseEvent(e);
    EXPECT(clEnqueueReadBuffer(q, m, CL_FALSE, 0, n, b, 0, NULL, &e), CL_SUCCESS);
    clWaitForEvents(1, &e);
    EXPECT(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t[0], &t[0], NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(e);

    /* a user event gates a chain of memory commands */
    cl_event user = clCreateUserEvent(ctx, &err);
    CHECK(user != NULL, "user event: %d", err);
    fill_pattern(a, n, 72);
    cl_event w, c, r, mp;
    cl_mem m2 = make(CL_MEM_READ_WRITE, n, NULL, &err);
    memset(b, 0, n);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n, a, 1, &user, &w), CL_SUCCESS);
    EXPECT(clEnqueueCopyBuffer(q, m, m2, 0, 0, n, 1, &w, &c), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(qprof, m2, CL_FALSE, 0, n, b, 1, &c, &r), CL_SUCCESS);
    unsigned char *p = clEnqueueMapBuffer(qprof, m2, CL_FALSE, CL_MAP_READ, 0, 16, 1, &r, &mp, &err);
    CHECK(p != NULL, "deferred map: %d", err);
    cl_int st = 0;
    clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st == CL_QUEUED || st == CL_SUBMITTED, "write behind unset user event: status %d", st);
    clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st > CL_COMPLETE, "read behind unset user event: status %d", st);
    usleep(10000);
    CHECK(b[0] == 0 && b[n - 1] == 0, "read ran before the user event was set");
    EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &mp), CL_SUCCESS);
    CHECK(same(a, b, n), "user-event chain result differs at %zu", first_diff(a, b, n));
    if (p) CHECK(same(p, a, 16), "deferred map content");
    clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st == CL_COMPLETE, "write status %d", st);
    if (p) EXPECT(clEnqueueUnmapMemObject(qprof, m2, p, 0, NULL, NULL), CL_SUCCESS);
    clReleaseEvent(w);
    clReleaseEvent(c);
    clReleaseEvent(r);
    clReleaseEvent(mp);
    clReleaseEvent(user);

    /* a failed user event fails the commands that wait for it */
    user = clCreateUserEvent(ctx, &err);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n, a, 1, &user, &w), CL_SUCCESS);
    EXPECT(clSetUserEventStatus(user, -1234), CL_SUCCESS);
    cl_int werr = clWaitForEvents(1, &w);
    CHECK(werr == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "wait on failed chain: %d", werr);
    clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st < 0, "command after failed user event: status %d", st);
    EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, b, 1, &user, NULL), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(w);
    clReleaseEvent(user);
    clFinish(q);
    clFinish(qprof);

    /* markers and barriers between memory commands on two queues */
    fill_pattern(a, n, 73);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n, a, 0, NULL, NULL), CL_SUCCESS);
    cl_event mk;
    EXPECT(clEnqueueMarkerWithWaitList(q, 0, NULL, &mk), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(qprof, m, CL_TRUE, 0, n, b, 1, &mk, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "cross-queue read after marker differs");
    clReleaseEvent(mk);

    /* migration */
    cl_mem both[2] = {m, m2};
    EXPECT(clEnqueueMigrateMemObjects(q, 2, both, 0, 0, NULL, &e), CL_SUCCESS);
    clWaitForEvents(1, &e);
    cl_command_type ty = 0;
    clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof ty, &ty, NULL);
    CHECK(ty == CL_COMMAND_MIGRATE_MEM_OBJECTS, "migrate type %u", ty);
    clReleaseEvent(e);
    EXPECT(clEnqueueMigrateMemObjects(q, 1, &m, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(read_all(m, b, n), CL_SUCCESS);
    CHECK(same(a, b, n), "data after migrations differs");
    EXPECT(clEnqueueMigrateMemObjects(q, 1, &m2, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueMigrateMemObjects(q, 0, both, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(q, 1, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(q, 1, &m, 0x80, 0, NULL, NULL), CL_INVALID_VALUE);
    clFinish(q);
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    free(a);
    free(b);
}

/* A blocking read behind a command that waits for a user event another thread sets. */
struct setter {
    cl_event user;
    int delay_ms;
};
static void *set_later(void *p) {
    struct setter *st = p;
    usleep((useconds_t)st->delay_ms * 1000);
    clSetUserEventStatus(st->user, CL_COMPLETE);
    return NULL;
}

static void test_blocking_behind_user_event(void) {
    const size_t n = (3u << 20) + 5;
    unsigned char *a = malloc(n), *b = malloc(n);
    fill_pattern(a, n, 74);
    memset(b, 0, n);
    cl_int err;
    cl_mem m = make(CL_MEM_READ_WRITE, n, NULL, &err);
    cl_event user = clCreateUserEvent(ctx, &err);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n, a, 1, &user, NULL), CL_SUCCESS);
    struct setter st = {user, 30};
    pthread_t t;
    pthread_create(&t, NULL, set_later, &st);
    EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "blocking read behind a user event differs at %zu", first_diff(a, b, n));
    pthread_join(t, NULL);
    /* a blocking map the same way */
    cl_event user2 = clCreateUserEvent(ctx, &err);
    unsigned char pat = 0x6e;
    EXPECT(clEnqueueFillBuffer(q, m, &pat, 1, 0, n, 1, &user2, NULL), CL_SUCCESS);
    st.user = user2;
    pthread_create(&t, NULL, set_later, &st);
    unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, n - 100, 100, 0, NULL, NULL, &err);
    CHECK(p && p[0] == 0x6e && p[99] == 0x6e, "blocking map behind a user event: %d", err);
    pthread_join(t, NULL);
    if (p) EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    clFinish(q);
    clReleaseEvent(user);
    clReleaseEvent(user2);
    clReleaseMemObject(m);
    free(a);
    free(b);
}

/* Several host threads, each with its own queue and buffer, transferring at once (the staging
 * chunks of a device are shared). */
struct worker {
    int id, failures;
};
static void *transfer_worker(void *p) {
    struct worker *w = p;
    const size_t n = (10u << 20) + 4096 * (size_t)w->id + 3;
    unsigned char *a = malloc(n), *b = malloc(n);
    cl_int err;
    cl_command_queue wq = clCreateCommandQueue(ctx, device, 0, &err);
    cl_mem m = make(CL_MEM_READ_WRITE, n, NULL, &err);
    if (!a || !b || !wq || !m) {
        w->failures++;
        return NULL;
    }
    for (int round = 0; round < 4; round++) {
        fill_pattern(a, n, (unsigned)(w->id * 10 + round));
        memset(b, 0, n);
        if (clEnqueueWriteBuffer(wq, m, round & 1, 0, n, a, 0, NULL, NULL) != CL_SUCCESS) w->failures++;
        if (clEnqueueReadBuffer(wq, m, CL_TRUE, 0, n, b, 0, NULL, NULL) != CL_SUCCESS) w->failures++;
        if (!same(a, b, n)) w->failures++;
    }
    clReleaseMemObject(m);
    clReleaseCommandQueue(wq);
    free(a);
    free(b);
    return NULL;
}

static void test_threads(void) {
    pthread_t t[4];
    struct worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i].id = i;
        w[i].failures = 0;
        pthread_create(&t[i], NULL, transfer_worker, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].failures == 0, "thread %d: %d failures", i, w[i].failures);
    }
}

/* Random sequences of memory commands on every device of the platform (one context), each
 * command waiting for the previous one's event, checked against a model of the contents:
 * exercises the bookkeeping of where the latest data is (device copies, host copy, zero-copy). */
static unsigned rng_state = 12345;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % (n ? n : 1);
}

#define FUZZ_BUFS 4
static void test_random_ops(void) {
    const char *seed = getenv("BUFFERS_SEED");
    if (seed && *seed) rng_state = (unsigned)strtoul(seed, NULL, 10);
    cl_device_id ds[4];
    cl_uint nd = 0;
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 4, ds, &nd);
    if (nd < 1) return;
    if (nd > 4) nd = 4;
    cl_int err;
    cl_context fc = clCreateContext(NULL, nd, ds, NULL, NULL, &err);
    CHECK(fc != NULL, "fuzz context: %d", err);
    if (!fc) return;
    cl_command_queue qs[8];
    for (cl_uint i = 0; i < nd; i++) {
        qs[2 * i] = clCreateCommandQueue(fc, ds[i], 0, &err);
        qs[2 * i + 1] = clCreateCommandQueue(fc, ds[i], CL_QUEUE_PROFILING_ENABLE, &err);
    }
    unsigned nq = 2 * nd;
    const size_t sizes[FUZZ_BUFS] = {65536 + 64, 40000, 3u << 20, 8192};
    const cl_mem_flags flags[FUZZ_BUFS] = {CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, CL_MEM_COPY_HOST_PTR};
    unsigned char *model[FUZZ_BUFS], *host[FUZZ_BUFS];
    cl_mem b[FUZZ_BUFS];
    for (int i = 0; i < FUZZ_BUFS; i++) {
        model[i] = malloc(sizes[i]);
        host[i] = malloc(sizes[i]);
        fill_pattern(host[i], sizes[i], 90 + (unsigned)i);
        if (flags[i] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) memcpy(model[i], host[i], sizes[i]);
        b[i] = clCreateBuffer(fc, flags[i], sizes[i], (flags[i] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ? host[i] : NULL, &err);
        CHECK(b[i] != NULL, "fuzz buffer %d: %d", i, err);
        if (!b[i]) return;
        if (!(flags[i] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))) {
            memset(model[i], 0, sizes[i]);
            clEnqueueWriteBuffer(qs[0], b[i], CL_TRUE, 0, sizes[i], model[i], 0, NULL, NULL);
        }
    }
    /* a sub-buffer of buffer 0 and of buffer 2 */
    cl_buffer_region r0 = {1024, 8192}, r2 = {512 * 1024, (1u << 20) + 100};
    cl_mem sub[2] = {clCreateSubBuffer(b[0], 0, CL_BUFFER_CREATE_TYPE_REGION, &r0, &err), clCreateSubBuffer(b[2], 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err)};
    int sub_parent[2] = {0, 2};
    size_t sub_off[2] = {r0.origin, r2.origin}, sub_size[2] = {r0.size, r2.size};
    CHECK(sub[0] && sub[1], "fuzz sub-buffers: %d", err);
    if (!sub[0] || !sub[1]) return;
    void *keep[1024]; /* sources of non-blocking writes, freed at the end */
    int nkeep = 0;
    cl_event last = NULL;
    int bad = 0, ops = 0;
    char what[64] = "";
    for (int step = 0; step < 600 && !bad; step++) {
        cl_command_queue cq = qs[rnd(nq)];
        cl_event ev = NULL;
        cl_uint nw = last ? 1 : 0;
        const cl_event *wl = last ? &last : NULL;
        int use_sub = rnd(4) == 0;
        int bi = use_sub ? -1 : (int)rnd(FUZZ_BUFS);
        int si = use_sub ? (int)rnd(2) : -1;
        cl_mem m = use_sub ? sub[si] : b[bi];
        unsigned char *mm = use_sub ? model[sub_parent[si]] + sub_off[si] : model[bi];
        size_t size = use_sub ? sub_size[si] : sizes[bi];
        size_t off = rnd((unsigned)size), len = 1 + rnd((unsigned)(size - off));
        int op = (int)rnd(8);
        ops++;
        switch (op) {
        case 0: { /* write (non-blocking from a kept source) */
            unsigned char *src = malloc(len);
            fill_pattern(src, len, (unsigned)step);
            if (nkeep < 1024) keep[nkeep++] = src;
            int blocking = rnd(2) || nkeep >= 1024;
            err = clEnqueueWriteBuffer(cq, m, blocking, off, len, src, nw, wl, &ev);
            memcpy(mm + off, src, len);
            if (nkeep >= 1024 && blocking) {
                clWaitForEvents(1, &ev);
                free(src);
            }
            snprintf(what, sizeof what, "write %zu+%zu", off, len);
            break;
        }
        case 1: { /* read and compare */
            unsigned char *dst = malloc(len);
            err = clEnqueueReadBuffer(cq, m, CL_TRUE, off, len, dst, nw, wl, &ev);
            if (err == CL_SUCCESS && !same(dst, mm + off, len)) {
                printf("fuzz step %d: read %zu+%zu of %s %d differs at %zu\n", step, off, len, use_sub ? "sub" : "buffer", use_sub ? si : bi, first_diff(dst, mm + off, len));
                bad = 1;
            }
            free(dst);
            snprintf(what, sizeof what, "read %zu+%zu", off, len);
            break;
        }
        case 2: { /* copy from another buffer (or from the same one, not overlapping) */
            int sj = (int)rnd(FUZZ_BUFS);
            if (sj == bi || use_sub) {
                /* within m: a non-overlapping pair of ranges */
                size_t half = size / 2, l = 1 + rnd((unsigned)half);
                size_t a = rnd((unsigned)(half - l + 1)), d = half + rnd((unsigned)(size - half - l + 1));
                if (rnd(2)) {
                    size_t t = a;
                    a = d;
                    d = t;
                }
                err = clEnqueueCopyBuffer(cq, m, m, a, d, l, nw, wl, &ev);
                memmove(mm + d, mm + a, l);
                snprintf(what, sizeof what, "copy self %zu->%zu (%zu)", a, d, l);
            } else {
                size_t l = 1 + rnd((unsigned)(sizes[sj] < size ? sizes[sj] : size));
                size_t a = rnd((unsigned)(sizes[sj] - l + 1)), d = rnd((unsigned)(size - l + 1));
                err = clEnqueueCopyBuffer(cq, b[sj], m, a, d, l, nw, wl, &ev);
                memcpy(mm + d, model[sj] + a, l);
                snprintf(what, sizeof what, "copy %d:%zu -> %zu (%zu)", sj, a, d, l);
            }
            break;
        }
        case 3: { /* fill */
            size_t ps = (size_t)1 << rnd(8);
            unsigned char pat[128];
            fill_pattern(pat, ps, (unsigned)step + 7);
            size_t o = off / ps * ps, n = len / ps * ps;
            if (o + n > size || n == 0) {
                o = 0;
                n = ps <= size ? ps : 0;
            }
            if (n == 0) {
                ops--;
                continue;
            }
            err = clEnqueueFillBuffer(cq, m, pat, ps, o, n, nw, wl, &ev);
            for (size_t i = 0; i < n; i++) mm[o + i] = pat[i % ps];
            snprintf(what, sizeof what, "fill %zu+%zu pattern %zu", o, n, ps);
            break;
        }
        case 4: { /* map, change, unmap */
            int whole = rnd(3) == 0;
            size_t o = whole ? 0 : off, l = whole ? size : len;
            cl_map_flags mf = rnd(3) == 0 ? CL_MAP_WRITE_INVALIDATE_REGION : rnd(2) ? CL_MAP_READ | CL_MAP_WRITE : CL_MAP_READ;
            cl_event mev;
            unsigned char *p = clEnqueueMapBuffer(cq, m, CL_FALSE, mf, o, l, nw, wl, &mev, &err);
            if (!p) break;
            clWaitForEvents(1, &mev);
            clReleaseEvent(mev);
            if (mf != CL_MAP_WRITE_INVALIDATE_REGION && !same(p, mm + o, l)) {
                printf("fuzz step %d: map %zu+%zu differs at %zu\n", step, o, l, first_diff(p, mm + o, l));
                bad = 1;
            }
            if (mf != CL_MAP_READ) {
                fill_pattern(p, l, (unsigned)step + 3);
                memcpy(mm + o, p, l);
            }
            cl_command_queue uq = qs[rnd(nq)]; /* unmap on any queue of the context */
            err = clEnqueueUnmapMemObject(uq, m, p, 0, NULL, &ev);
            snprintf(what, sizeof what, "map 0x%llx %zu+%zu", (unsigned long long)mf, o, l);
            break;
        }
        case 5: { /* rect write then rect read of a 2-D block */
            size_t row = 64, w = 1 + rnd(32), h = 1 + rnd(16);
            if (size < row * (h + 1)) {
                ops--;
                continue;
            }
            size_t ox = rnd((unsigned)(row - w)), oy = rnd((unsigned)(size / row - h));
            size_t borg[3] = {ox, oy, 0}, horg[3] = {0, 0, 0}, reg[3] = {w, h, 1};
            unsigned char *src = malloc(w * h);
            fill_pattern(src, w * h, (unsigned)step + 11);
            err = clEnqueueWriteBufferRect(cq, m, CL_TRUE, borg, horg, reg, row, 0, w, 0, src, nw, wl, &ev);
            for (size_t y = 0; y < h; y++) memcpy(mm + (oy + y) * row + ox, src + y * w, w);
            free(src);
            snprintf(what, sizeof what, "rect write %zux%zu at %zu,%zu", w, h, ox, oy);
            break;
        }
        case 6: { /* migrate to this queue's device, or to the host */
            err = clEnqueueMigrateMemObjects(cq, 1, &m, rnd(3) == 0 ? CL_MIGRATE_MEM_OBJECT_HOST : 0, nw, wl, &ev);
            snprintf(what, sizeof what, "migrate");
            break;
        }
        default: { /* a marker, to vary the chains */
            err = clEnqueueMarkerWithWaitList(cq, nw, wl, &ev);
            snprintf(what, sizeof what, "marker");
            break;
        }
        }
        if (getenv("BUFFERS_TRACE")) {
            unsigned qi = 0;
            while (qi < nq && qs[qi] != cq) qi++;
            printf("step %d: queue %u: %s on %s %d\n", step, qi, what, use_sub ? "sub" : "buffer", use_sub ? si : bi);
        }
        if (err != CL_SUCCESS) {
            printf("fuzz step %d: %s on %s %d: error %d\n", step, what, use_sub ? "sub" : "buffer", use_sub ? si : bi, err);
            bad = 1;
        }
        if (last) clReleaseEvent(last);
        last = ev;
    }
    if (last) {
        clWaitForEvents(1, &last);
        clReleaseEvent(last);
    }
    for (unsigned i = 0; i < nq; i++) clFinish(qs[i]);
    for (int i = 0; i < FUZZ_BUFS && !bad; i++) {
        unsigned char *got = malloc(sizes[i]);
        EXPECT(clEnqueueReadBuffer(qs[rnd(nq)], b[i], CL_TRUE, 0, sizes[i], got, 0, NULL, NULL), CL_SUCCESS);
        CHECK(same(got, model[i], sizes[i]), "fuzz buffer %d at the end differs at %zu", i, first_diff(got, model[i], sizes[i]));
        free(got);
    }
    CHECK(!bad, "random command sequence (%d commands, %u devices): last %s", ops, nd, what);
    for (int i = 0; i < nkeep; i++) free(keep[i]);
    clReleaseMemObject(sub[0]);
    clReleaseMemObject(sub[1]);
    for (int i = 0; i < FUZZ_BUFS; i++) {
        clReleaseMemObject(b[i]);
        free(model[i]);
        free(host[i]);
    }
    for (unsigned i = 0; i < nq; i++) clReleaseCommandQueue(qs[i]);
    clReleaseContext(fc);
}

/* Buffers as kernel arguments: the kernel's writes are what the host sees next (a map of a
 * USE_HOST_PTR result fetches the device copy; a READ_ONLY input stays valid on the host), also
 * through sub-buffers. The fake driver does not run kernels: there only the copies are checked. */
static void test_kernel_args(void) {
    const char *src =
        "__kernel void inc(__global int *o, __global const int *in) {\n"
        "    size_t i = get_global_id(0);\n"
        "    o[i] = in[i] + 1;\n"
        "}\n";
    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = prog ? clBuildProgram(prog, 1, &device, NULL, NULL, NULL) : err;
    CHECK(err == CL_SUCCESS, "build: %d", err);
    if (err != CL_SUCCESS) return;
    cl_kernel k = clCreateKernel(prog, "inc", &err);
    CHECK(k != NULL, "kernel: %d", err);
    if (!k) return;
    const size_t n = 1 << 16;
    int *in_host = aligned_alloc(4096, n * sizeof(int)), *out_host = aligned_alloc(4096, n * sizeof(int));
    for (size_t i = 0; i < n; i++) {
        in_host[i] = (int)(i * 3);
        out_host[i] = -1;
    }
    cl_mem in = make(CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(int), in_host, &err);
    cl_mem out = make(CL_MEM_USE_HOST_PTR, n * sizeof(int), out_host, &err);
    EXPECT(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof in, &in), CL_SUCCESS);
    size_t global = n;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    int discrete_fake = fake_stats && on_cudacl && !integrated();
    struct fakecuda_stats s0 = stats_now();
    int *p = clEnqueueMapBuffer(q, out, CL_TRUE, CL_MAP_READ, 0, n * sizeof(int), 0, NULL, NULL, &err);
    struct fakecuda_stats s1 = stats_now();
    CHECK(p == out_host, "map of the result: %d", err);
    if (discrete_fake) CHECK(s1.dtoh_calls > s0.dtoh_calls, "the kernel's result was not fetched from the device");
    if (p && !fake_stats) {
        int ok = 1;
        for (size_t i = 0; i < n; i++) ok &= p[i] == (int)(i * 3) + 1;
        CHECK(ok, "kernel result seen through the map");
    }
    if (p) EXPECT(clEnqueueUnmapMemObject(q, out, p, 0, NULL, NULL), CL_SUCCESS);
    s0 = stats_now();
    p = clEnqueueMapBuffer(q, in, CL_TRUE, CL_MAP_READ, 0, n * sizeof(int), 0, NULL, NULL, &err);
    s1 = stats_now();
    if (discrete_fake) CHECK(s1.dtoh_calls == s0.dtoh_calls, "a READ_ONLY input was copied back after a kernel");
    CHECK(p && p[5] == 15, "input intact");
    if (p) EXPECT(clEnqueueUnmapMemObject(q, in, p, 0, NULL, NULL), CL_SUCCESS);
    /* through sub-buffers: the second half of `out` from the first half of `in` */
    cl_buffer_region ro = {n / 2 * sizeof(int), n / 2 * sizeof(int)}, ri = {0, n / 2 * sizeof(int)};
    cl_mem so = clCreateSubBuffer(out, 0, CL_BUFFER_CREATE_TYPE_REGION, &ro, &err);
    cl_mem si = clCreateSubBuffer(in, 0, CL_BUFFER_CREATE_TYPE_REGION, &ri, &err);
    CHECK(so && si, "sub-buffers: %d", err);
    if (so && si) {
        /* make the host copy of `in` the only valid one: the launch must upload it */
        int *w = clEnqueueMapBuffer(q, in, CL_TRUE, CL_MAP_WRITE, 0, n * sizeof(int), 0, NULL, NULL, &err);
        if (w) {
            for (size_t i = 0; i < n; i++) w[i] = (int)i * 7;
            EXPECT(clEnqueueUnmapMemObject(q, in, w, 0, NULL, NULL), CL_SUCCESS);
        }
        EXPECT(clSetKernelArg(k, 0, sizeof so, &so), CL_SUCCESS);
        EXPECT(clSetKernelArg(k, 1, sizeof si, &si), CL_SUCCESS);
        global = n / 2;
        s0 = stats_now();
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
        clFinish(q);
        s1 = stats_now();
        if (discrete_fake) CHECK(s1.htod_calls > s0.htod_calls, "the host's new input was not uploaded for the kernel");
        int *r = malloc(n * sizeof(int));
        EXPECT(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(int), r, 0, NULL, NULL), CL_SUCCESS);
        if (!fake_stats) {
            int ok = 1;
            for (size_t i = 0; i < n / 2; i++) ok &= r[i] == (int)(i * 3) + 1 && r[n / 2 + i] == (int)i * 7 + 1;
            CHECK(ok, "kernel through sub-buffers");
        }
        free(r);
    }
    if (so) clReleaseMemObject(so);
    if (si) clReleaseMemObject(si);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    free(in_host);
    free(out_host);
}

/* Objects of another context are refused. */
static void test_context_mismatch(void) {
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!other) return;
    cl_mem m = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem mine = make(CL_MEM_READ_WRITE, 64, NULL, &err);
    char buf[64];
    EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 64, buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
    EXPECT(clEnqueueCopyBuffer(q, mine, m, 0, 0, 64, 0, NULL, NULL), CL_INVALID_CONTEXT);
    clReleaseMemObject(m);
    clReleaseMemObject(mine);
    clReleaseContext(other);
}

/* ------------------------------------------------------------------ several devices */

static void test_multi_device(void) {
    cl_device_id ds[2];
    cl_command_queue qs[2];
    cl_context mc = two_gpu_context(platform, "multi-device", ds, qs);
    if (!mc) return;
    cl_command_queue q0 = qs[0], q1 = qs[1];
    cl_int err;
    const size_t n = (2u << 20) + 64;
    unsigned char *a = malloc(n), *b = malloc(n);
    fill_pattern(a, n, 81);
    struct fakecuda_stats s0 = stats_now();
    cl_mem m = clCreateBuffer(mc, CL_MEM_COPY_HOST_PTR, n, a, &err);
    CHECK(m != NULL, "multi-device buffer: %d", err);
    memset(b, 0, n);
    EXPECT(clEnqueueReadBuffer(q1, m, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "initial data on device 1 differs at %zu", first_diff(a, b, n));
    /* write on device 0, read on device 1: the data moves */
    fill_pattern(a, n, 82);
    cl_event w;
    EXPECT(clEnqueueWriteBuffer(q0, m, CL_FALSE, 0, n, a, 0, NULL, &w), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q1, m, CL_TRUE, 0, n, b, 1, &w, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "device 0 -> device 1 differs at %zu", first_diff(a, b, n));
    clReleaseEvent(w);
    struct fakecuda_stats s1 = stats_now();
    if (fake_stats && on_cudacl && !integrated()) CHECK(s1.peer_calls > s0.peer_calls, "no peer copy between the devices");
    /* partial fill on device 1, partial write on device 0, read on device 0 */
    unsigned short pat = 0xBEEF;
    EXPECT(clEnqueueFillBuffer(q1, m, &pat, 2, 64, 4096, 0, NULL, &w), CL_SUCCESS);
    for (size_t i = 0; i < 4096; i += 2) memcpy(a + 64 + i, &pat, 2);
    EXPECT(clEnqueueWriteBuffer(q0, m, CL_TRUE, n - 100, 100, a, 1, &w, NULL), CL_SUCCESS);
    memmove(a + n - 100, a, 100);
    clReleaseEvent(w);
    EXPECT(clEnqueueReadBuffer(q0, m, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "mixed device writes differ at %zu", first_diff(a, b, n));
    /* map on device 1 after writes on device 0 */
    unsigned char *p = clEnqueueMapBuffer(q1, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    CHECK(p && same(p, a, n), "map on device 1: %d", err);
    if (p) {
        p[5] = 0x42;
        a[5] = 0x42;
        EXPECT(clEnqueueUnmapMemObject(q1, m, p, 0, NULL, NULL), CL_SUCCESS);
        clFinish(q1);
    }
    EXPECT(clEnqueueReadBuffer(q0, m, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "after map on device 1 differs at %zu", first_diff(a, b, n));
    /* sub-buffer copies between devices, and migration */
    cl_mem m2 = clCreateBuffer(mc, CL_MEM_READ_WRITE, n, NULL, &err);
    EXPECT(clEnqueueCopyBuffer(q1, m, m2, 0, 0, n, 0, NULL, NULL), CL_SUCCESS);
    clFinish(q1);
    EXPECT(clEnqueueMigrateMemObjects(q0, 1, &m2, 0, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q0, m2, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "copy on device 1, read on device 0 differs at %zu", first_diff(a, b, n));
    /* a copy on device 1 from a buffer only device 0 holds reads device 0's copy in place: only
       the copied bytes cross, once (not the whole source, then a copy on device 1) */
    fill_pattern(a, n, 83);
    EXPECT(clEnqueueWriteBuffer(q0, m, CL_TRUE, 0, n, a, 0, NULL, NULL), CL_SUCCESS);
    const size_t off = 4096 + 8, len = n / 2 + 12, doff = 64;
    struct fakecuda_stats s2 = stats_now();
    EXPECT(clEnqueueCopyBuffer(q1, m, m2, off, doff, len, 0, NULL, NULL), CL_SUCCESS);
    clFinish(q1);
    struct fakecuda_stats s3 = stats_now();
    if (fake_stats && on_cudacl && !integrated())
        CHECK(s3.peer_bytes - s2.peer_bytes == len, "device 0 -> device 1 copy moved %llu bytes across, want %zu",
              (unsigned long long)(s3.peer_bytes - s2.peer_bytes), len);
    memset(b, 0, n);
    EXPECT(clEnqueueReadBuffer(q1, m2, CL_TRUE, doff, len, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a + off, b, len), "peer copy buffer differs at %zu", first_diff(a + off, b, len));
    /* the source is still whole on device 1 afterwards */
    EXPECT(clEnqueueReadBuffer(q1, m, CL_TRUE, 0, n, b, 0, NULL, NULL), CL_SUCCESS);
    CHECK(same(a, b, n), "source read on device 1 after the peer copy differs at %zu", first_diff(a, b, n));
    clReleaseMemObject(m2);
    clReleaseMemObject(m);
    clReleaseCommandQueue(q0);
    clReleaseCommandQueue(q1);
    clReleaseContext(mc);
    free(a);
    free(b);
}

/* ------------------------------------------------------------------ main */

static int alloc_limit_mode(void) {
    cl_int err;
    cl_mem m = make(CL_MEM_READ_WRITE, 64u << 20, NULL, &err);
    CHECK(!m && err == CL_MEM_OBJECT_ALLOCATION_FAILURE, "64 MiB over the device's memory: %p err %d", (void *)m, err);
    cl_mem small = make(CL_MEM_READ_WRITE, 1u << 20, NULL, &err);
    CHECK(small && err == CL_SUCCESS, "1 MiB still fits: %d", err);
    if (small) clReleaseMemObject(small);
    return report("buffers alloc-limit");
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    platform = find_platform();
    device = find_gpu(platform);
    if (!device) {
        printf("buffers: no GPU on the selected platform\n");
        return 2;
    }
    char pname[256] = {0};
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    on_cudacl = strstr(pname, "cudacl") != NULL;
    cl_int err;
    ctx = suite_context(platform, &device, NULL, &err);
    q = clCreateCommandQueue(ctx, device, 0, &err);
    qprof = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ctx || !q || !qprof) {
        printf("buffers: setup failed (%d)\n", err);
        return 2;
    }
    find_fake_driver();
    if (fake_stats) printf("buffers: fake CUDA driver detected (runtime-logic test, not a GPU)%s\n", integrated() ? ", integrated" : "");
    if (argc > 1 && !strcmp(argv[1], "alloc-limit")) return alloc_limit_mode();

    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"create_errors", test_create_errors}, {"flag_matrix", test_flag_matrix}, {"use_host_ptr", test_use_host_ptr},
        {"alloc_host_ptr", test_alloc_host_ptr}, {"read_write_copy", test_read_write_copy}, {"large_transfers", test_large_transfers},
        {"rect", test_rect}, {"fill", test_fill}, {"map", test_map}, {"sub_buffers", test_sub_buffers}, {"info", test_info},
        {"events", test_events}, {"blocking_behind_user_event", test_blocking_behind_user_event}, {"threads", test_threads},
        {"context_mismatch", test_context_mismatch}, {"random_ops", test_random_ops},
        {"kernel_args", test_kernel_args}, {"multi_device", test_multi_device},
    };
    const char *only = getenv("BUFFERS_ONLY");
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (only && *only && !strstr(only, tests[i].name)) continue;
        int before = checks_failed, pb = checks_passed;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%-26s %d passed, %d failed (%.1f ms)\n", tests[i].name, checks_passed - pb, checks_failed - before,
               (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(qprof);
    clReleaseContext(ctx);
    return report("buffers");
}
