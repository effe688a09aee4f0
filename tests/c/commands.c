/* The command path's shortcuts (issue 12), checked for what the spec requires of them:
 *  - a blocking write returns once the application may reuse its memory: from pinned memory
 *    (the driver reads it later) it must still wait; from pageable memory it need not;
 *  - a blocking read returns with the data in place, into pageable and into pinned memory;
 *  - a map of part of a small buffer reads it all, and a later map copies nothing until the
 *    buffer changes on the device; the maps still see every change;
 *  - events: many commands with events released at once (their CUDA events reused) still
 *    complete in order; profiling END >= START >= SUBMIT;
 *  - kernel buffer arguments bound per launch without allocating (up to 8) or on the heap;
 *  - event callbacks as OpenCV uses them (one per command, releasing the command's objects):
 *    each runs once, after its command completed, in registration order per event, also when
 *    registered from inside another callback, without a thread per event (fake driver).
 * Runs on any platform; the copy counts are checked only on the fake driver (tests/fakecuda),
 * whose FAKECUDA_ASYNC=1 mode runs copies from pinned memory later, as a GPU does.
 * Build: cc -I tests/c tests/c/commands.c -lOpenCL -ldl */
#include "common.h"
#include "fakecuda_hooks.h"
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q, qprof;

static void (*fake_stats)(struct fakecuda_stats *);

static unsigned long long dtoh_calls(void) {
    struct fakecuda_stats s;
    memset(&s, 0, sizeof s);
    if (fake_stats) fake_stats(&s);
    return s.dtoh_calls;
}

static cl_mem buffer(cl_mem_flags flags, size_t size) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, size, NULL, &err);
    CHECK(m != NULL, "clCreateBuffer: %d", err);
    return m;
}

/* Blocking writes, each from memory overwritten right after the call returns. */
static void blocking_writes(void) {
    enum { N = 4096 };
    cl_int err;
    cl_mem dst = buffer(CL_MEM_READ_WRITE, N);
    /* Pinned source: the mapped host memory of an ALLOC_HOST_PTR buffer. */
    cl_mem host = buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N);
    unsigned char *pinned = clEnqueueMapBuffer(q, host, CL_TRUE, CL_MAP_WRITE, 0, N, 0, NULL, NULL, &err);
    CHECK(pinned != NULL, "map: %d", err);
    static unsigned char pageable[N], back[N];
    for (int round = 0; round < 20 && pinned; round++) {
        unsigned char *srcs[2] = {pinned, pageable};
        for (int s = 0; s < 2; s++) {
            memset(srcs[s], 1 + round, N);
            EXPECT(clEnqueueWriteBuffer(q, dst, CL_TRUE, 0, N, srcs[s], 0, NULL, NULL), CL_SUCCESS);
            memset(srcs[s], 0xEE, N); /* allowed once a blocking write returned */
            memset(back, 0, N);
            EXPECT(clEnqueueReadBuffer(q, dst, CL_TRUE, 0, N, back, 0, NULL, NULL), CL_SUCCESS);
            int bad = 0;
            for (int i = 0; i < N; i++) bad += back[i] != 1 + round;
            CHECK(bad == 0, "write from %s memory, round %d: %d bytes wrong", s ? "pageable" : "pinned", round, bad);
        }
    }
    /* Blocking reads into pinned memory have the data on return. */
    for (int round = 0; round < 20 && pinned; round++) {
        memset(pageable, 0x40 + round, N);
        EXPECT(clEnqueueWriteBuffer(q, dst, CL_FALSE, 0, N, pageable, 0, NULL, NULL), CL_SUCCESS);
        memset(pinned, 0, N);
        EXPECT(clEnqueueReadBuffer(q, dst, CL_TRUE, 0, N, pinned, 0, NULL, NULL), CL_SUCCESS);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += pinned[i] != 0x40 + round;
        CHECK(bad == 0, "read into pinned memory, round %d: %d bytes wrong", round, bad);
    }
    if (pinned) EXPECT(clEnqueueUnmapMemObject(q, host, pinned, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    clReleaseMemObject(dst);
    clReleaseMemObject(host);
}

/* Maps of part of a small buffer, with changes on the host and on the device between them. */
static void small_maps(void) {
    enum { N = 16384, PART = 4096 };
    cl_int err;
    cl_mem m = buffer(CL_MEM_READ_WRITE, N), other = buffer(CL_MEM_READ_WRITE, N);
    static unsigned char init[N], back[N];
    for (int i = 0; i < N; i++) init[i] = (unsigned char)(i * 7);
    EXPECT(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, N, init, 0, NULL, NULL), CL_SUCCESS);
    unsigned long long d0 = dtoh_calls();
    for (int round = 0; round < 4; round++) {
        size_t off = (size_t)round * PART;
        unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, off, PART, 0, NULL, NULL, &err);
        CHECK(p != NULL, "map %d: %d", round, err);
        if (!p) break;
        int bad = 0;
        for (int i = 0; i < PART; i++) bad += p[i] != init[off + i];
        CHECK(bad == 0, "map %d sees %d wrong bytes", round, bad);
        p[0] ^= 0xFF;
        init[off] ^= 0xFF;
        EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    }
    EXPECT(clFinish(q), CL_SUCCESS);
    if (fake_stats) CHECK(dtoh_calls() - d0 == 1, "4 maps of a 16 KiB buffer read it %llu times (want once)", dtoh_calls() - d0);
    /* The device copy has every unmapped change. */
    EXPECT(clEnqueueCopyBuffer(q, m, other, 0, 0, N, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, other, CL_TRUE, 0, N, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(back, init, N), "device copy after unmaps differs");
    /* A change on the device: the next map reads again and sees it. */
    unsigned char v = 0x5A;
    EXPECT(clEnqueueFillBuffer(q, m, &v, 1, 8192, 16, 0, NULL, NULL), CL_SUCCESS);
    memset(init + 8192, 0x5A, 16);
    unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 8192, PART, 0, NULL, NULL, &err);
    CHECK(p != NULL && !memcmp(p, init + 8192, PART), "map after a device change sees old data");
    if (p) EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
    /* Two mappings at once: the second must not overwrite what the first holds. */
    unsigned char *a = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0, PART, 0, NULL, NULL, &err);
    if (a) a[1] = 0x77, init[1] = 0x77;
    EXPECT(clEnqueueFillBuffer(q, m, &v, 1, 12288, 16, 0, NULL, NULL), CL_SUCCESS);
    memset(init + 12288, 0x5A, 16);
    unsigned char *b = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 12288, PART, 0, NULL, NULL, &err);
    CHECK(a && b && a[1] == 0x77 && !memcmp(b, init + 12288, PART), "overlapping mappings disturbed each other");
    if (b) EXPECT(clEnqueueUnmapMemObject(q, m, b, 0, NULL, NULL), CL_SUCCESS);
    if (a) EXPECT(clEnqueueUnmapMemObject(q, m, a, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(back, init, N), "buffer after both mappings differs");
    clReleaseMemObject(m);
    clReleaseMemObject(other);
}

/* Many events created and released: in order, complete, profiling times ordered. */
static void events(void) {
    enum { N = 300 };
    cl_mem m = buffer(CL_MEM_READ_WRITE, 4 * N);
    for (int i = 0; i < N; i++) {
        cl_event e;
        cl_int v = i;
        EXPECT(clEnqueueWriteBuffer(qprof, m, CL_FALSE, 4 * (size_t)i, 4, &v, 0, NULL, &e), CL_SUCCESS);
        if (i % 3 == 0) {
            EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
            cl_ulong sub = 0, start = 0, end = 0;
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_SUBMIT, sizeof sub, &sub, NULL);
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
            CHECK(sub <= start && start <= end && end > 0, "event %d: submit %llu start %llu end %llu", i,
                  (unsigned long long)sub, (unsigned long long)start, (unsigned long long)end);
        }
        clReleaseEvent(e);
    }
    cl_event marker;
    EXPECT(clEnqueueMarkerWithWaitList(qprof, 0, NULL, &marker), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &marker), CL_SUCCESS);
    cl_int st = 0;
    clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st == CL_COMPLETE, "marker status %d", st);
    clReleaseEvent(marker);
    static cl_int back[N];
    EXPECT(clEnqueueReadBuffer(qprof, m, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += back[i] != i;
    CHECK(bad == 0, "%d of %d writes with events lost", bad, N);
    clReleaseMemObject(m);
}

/* Buffer arguments bound per launch: inline for a few, on the heap for many; every address in
 * the parameter buffer (fake driver only), and a released buffer still set is refused. */
static int (*last_launch)(struct fakecuda_launch *);

static void buffer_args(void) {
    static const char *src =
        "__kernel void few(__global int *a, __global int *b, __global int *c) { a[0] = b[0] + c[0]; }\n"
        "__kernel void many(__global int *a0, __global int *a1, __global int *a2, __global int *a3,\n"
        "                   __global int *a4, __global int *a5, __global int *a6, __global int *a7,\n"
        "                   __global int *a8, __global int *a9) { a0[0] = a9[0] + a5[0]; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    EXPECT(clBuildProgram(p, 1, &dev, "", NULL, NULL), CL_SUCCESS);
    const char *names[2] = {"few", "many"};
    int counts[2] = {3, 10};
    for (int v = 0; v < 2; v++) {
        cl_kernel k = clCreateKernel(p, names[v], &err);
        CHECK(k != NULL, "%s: %d", names[v], err);
        if (!k) continue;
        cl_mem m[10];
        for (int i = 0; i < counts[v]; i++) {
            m[i] = buffer(CL_MEM_READ_WRITE, 64);
            EXPECT(clSetKernelArg(k, i, sizeof m[i], &m[i]), CL_SUCCESS);
        }
        size_t g = 1;
        for (int round = 0; round < 3; round++)
            EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clFinish(q), CL_SUCCESS);
        struct fakecuda_launch l;
        if (last_launch && last_launch(&l)) {
            unsigned long long addr[10];
            int ok = l.param_size >= 8 * (size_t)counts[v];
            for (int i = 0; ok && i < counts[v]; i++) {
                memcpy(&addr[i], l.params + 8 * i, 8);
                ok = addr[i] != 0;
                for (int j = 0; j < i; j++) ok = ok && addr[j] != addr[i];
            }
            CHECK(ok, "%s: the %d buffer addresses in the parameter buffer are not all set and distinct", names[v], counts[v]);
        }
        /* Residency: a map makes the host copy current; a launch that may write the buffer
         * makes the device's the only current one, so the next map copies again; a launch that
         * only reads (a CL_MEM_READ_ONLY buffer) does not. */
        if (v == 0 && fake_stats) {
            cl_mem ro = buffer(CL_MEM_READ_ONLY, 64);
            EXPECT(clSetKernelArg(k, 1, sizeof ro, &ro), CL_SUCCESS);
            cl_mem both[2] = {m[0], ro};
            for (int round = 0; round < 3; round++) {
                for (int b = 0; b < 2; b++) {
                    void *h = clEnqueueMapBuffer(q, both[b], CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
                    if (h) EXPECT(clEnqueueUnmapMemObject(q, both[b], h, 0, NULL, NULL), CL_SUCCESS);
                }
                EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL), CL_SUCCESS);
                unsigned long long d0 = dtoh_calls();
                void *h = clEnqueueMapBuffer(q, m[0], CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
                CHECK(dtoh_calls() - d0 == 1, "round %d: map after a launch that may write: %llu copies (want 1)", round, dtoh_calls() - d0);
                if (h) EXPECT(clEnqueueUnmapMemObject(q, m[0], h, 0, NULL, NULL), CL_SUCCESS);
                d0 = dtoh_calls();
                h = clEnqueueMapBuffer(q, ro, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
                CHECK(dtoh_calls() - d0 == 0, "round %d: map of a read-only argument: %llu copies (want 0)", round, dtoh_calls() - d0);
                if (h) EXPECT(clEnqueueUnmapMemObject(q, ro, h, 0, NULL, NULL), CL_SUCCESS);
            }
            EXPECT(clSetKernelArg(k, 1, sizeof m[1], &m[1]), CL_SUCCESS);
            clReleaseMemObject(ro);
        }
        /* The last buffer released while still set: the next launch is refused. */
        clReleaseMemObject(m[counts[v] - 1]);
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
        for (int i = 0; i < counts[v] - 1; i++) clReleaseMemObject(m[i]);
        clReleaseKernel(k);
    }
    clReleaseProgram(p);
}

/* Event callbacks, OpenCV's way: a command per operation with an event, a CL_COMPLETE
 * callback on it that releases the operation's temporaries, the event released right after. */
enum { CB_OPS = 200 };
static int cb_calls[CB_OPS][3], cb_order, cb_bad_status, cb_bad_handle, cb_done;
static cl_mem cb_temp[CB_OPS];
static cl_event cb_next[CB_OPS];

static int threads_now(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *data) {
    int i = (int)(intptr_t)data % CB_OPS, which = (int)(intptr_t)data / CB_OPS;
    cl_int now = -1;
    /* Every callback asks its event's status, also where the test released the event right after
     * setting the callback: OpenCL keeps an event until its command is done, so its handle is
     * still valid here. */
    cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof now, &now, NULL);
    if (err != CL_SUCCESS) __atomic_add_fetch(&cb_bad_handle, 1, __ATOMIC_SEQ_CST);
    if (status != CL_COMPLETE || now != CL_COMPLETE) __atomic_add_fetch(&cb_bad_status, 1, __ATOMIC_SEQ_CST);
    cb_calls[i][which] = __atomic_add_fetch(&cb_order, 1, __ATOMIC_SEQ_CST);
    if (which == 0) {
        clReleaseMemObject(cb_temp[i]); /* the operation's temporary, as OpenCV's cleanup does */
        /* From inside a callback, one on the next command's event (kept for this). */
        if (cb_next[i]) {
            clSetEventCallback(cb_next[i], CL_COMPLETE, on_complete, (void *)(intptr_t)(i + 1 + 2 * CB_OPS));
            clReleaseEvent(cb_next[i]);
        }
    }
    __atomic_add_fetch(&cb_done, 1, __ATOMIC_SEQ_CST);
}

static void callbacks(void) {
    enum { N = 4096 };
    cl_mem src = buffer(CL_MEM_READ_WRITE, N), dst = buffer(CL_MEM_READ_WRITE, N);
    int base_threads = threads_now(), max_threads = base_threads, expected = 0;
    cl_event ev[CB_OPS];
    /* Each command's callbacks are registered once the next command is enqueued (so that one
     * callback in ten can register another on the next command's event). */
    for (int i = 0; i <= CB_OPS; i++) {
        if (i < CB_OPS) {
            cb_temp[i] = buffer(CL_MEM_READ_WRITE, 64);
            EXPECT(clEnqueueCopyBuffer(q, src, dst, 0, 0, N, 0, NULL, &ev[i]), CL_SUCCESS);
        }
        if (i == 0) continue;
        int k = i - 1;
        if (k % 10 == 3 && k + 1 < CB_OPS) {
            clRetainEvent(ev[k + 1]);
            cb_next[k] = ev[k + 1];
            expected++;
        }
        EXPECT(clSetEventCallback(ev[k], CL_COMPLETE, on_complete, (void *)(intptr_t)k), CL_SUCCESS);
        expected++;
        if (k % 4 == 1) { /* a second callback on the same event runs after the first */
            EXPECT(clSetEventCallback(ev[k], CL_COMPLETE, on_complete, (void *)(intptr_t)(k + CB_OPS)), CL_SUCCESS);
            expected++;
        } else {
            clReleaseEvent(ev[k]);
        }
        int t = threads_now();
        if (t > max_threads) max_threads = t;
    }
    EXPECT(clFinish(q), CL_SUCCESS);
    /* Callbacks may run after clFinish returned: wait for them (at most 10 s). */
    for (int w = 0; w < 10000 && __atomic_load_n(&cb_done, __ATOMIC_SEQ_CST) < expected; w++) usleep(1000);
    CHECK(cb_done == expected, "callbacks: %d of %d ran", cb_done, expected);
    CHECK(cb_bad_handle == 0, "callbacks: %d could not ask their own (released) event's status", cb_bad_handle);
    CHECK(cb_bad_status == 0, "callbacks: %d saw a status other than CL_COMPLETE", cb_bad_status);
    int order_bad = 0;
    for (int i = 1; i < CB_OPS; i += 4) order_bad += !(cb_calls[i][0] && cb_calls[i][1] > cb_calls[i][0]);
    CHECK(order_bad == 0, "callbacks: %d events ran their two callbacks out of registration order", order_bad);
    for (int k = 1; k < CB_OPS; k += 4) clReleaseEvent(ev[k]);
    /* A callback registered once the event is complete runs too. */
    cl_event e;
    EXPECT(clEnqueueCopyBuffer(q, src, dst, 0, 0, N, 0, NULL, &e), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
    int before = cb_done;
    cb_temp[0] = buffer(CL_MEM_READ_WRITE, 64);
    cb_next[0] = NULL;
    EXPECT(clSetEventCallback(e, CL_COMPLETE, on_complete, (void *)0), CL_SUCCESS);
    for (int w = 0; w < 10000 && __atomic_load_n(&cb_done, __ATOMIC_SEQ_CST) == before; w++) usleep(1000);
    CHECK(cb_done == before + 1, "callback on a complete event: did not run");
    clReleaseEvent(e);
    /* No thread per event: CB_OPS commands in flight with callbacks add a few threads at most. */
    if (fake_stats)
        CHECK(max_threads - base_threads <= 8, "callbacks: %d threads while %d commands with callbacks were in flight (had %d)",
              max_threads, CB_OPS, base_threads);
    printf("callbacks: %d ran, threads %d -> at most %d\n", cb_done, base_threads, max_threads);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    cl_platform_id p = find_platform();
    dev = find_gpu(p);
    if (!dev) {
        printf("commands: skipped (no GPU)\n");
        return 0;
    }
    cl_int err;
    ctx = suite_context(p, &dev, NULL, &err);
    const char *names[] = {"libcuda.so", "libcuda.so.1"};
    for (int i = 0; i < 2 && !fake_stats; i++) {
        void *h = dlopen(names[i], RTLD_NOLOAD | RTLD_NOW);
        if (h) fake_stats = (void (*)(struct fakecuda_stats *))dlsym(h, "fakecuda_stats");
        if (h) last_launch = (int (*)(struct fakecuda_launch *))dlsym(h, "fakecuda_last_launch");
    }
    if (fake_stats) printf("fake CUDA driver detected\n");
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    qprof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    blocking_writes();
    small_maps();
    events();
    buffer_args();
    callbacks();
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(qprof);
    clReleaseContext(ctx);
    return report("commands");
}
