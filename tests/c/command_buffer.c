/* cl_khr_command_buffer (0.9.8): recording kernels, copies and fills with sync points, replaying
 * a finalized buffer several times (the first replay command by command, later ones as one CUDA
 * graph where cudacl can), the numbers after each replay, kernel arguments captured at record
 * time, image and SVM commands, mutable dispatches (cl_khr_command_buffer_mutable_dispatch), the error codes of every entry point, the info and device queries, and a timing print
 * (1000 small kernels replayed from a command buffer against the same kernels enqueued one by
 * one; printed, not asserted).
 * With CL_PLATFORM_NAME naming another platform (e.g. "NVIDIA CUDA"), only the replays and the
 * timings run (the rest checks cudacl's own answers).
 * Usage: command_buffer [gpu]   (gpu: kernels run, so their results are checked too; on the fake
 * driver kernels do not run, and its counters check that later replays are graph launches) */
#include "common.h"
#include "fakecuda_hooks.h"
#include <dlfcn.h>
#include <time.h>

/* The extension's types and values, 0.9.8 (OpenCL-Headers' cl_ext.h, beta extensions): defined
 * here so the program does not depend on the installed headers' provisional version. */
typedef struct _cb_khr *cb_khr;
typedef cl_uint cb_sync_point;
typedef cl_ulong cb_props;
#define CB_DEVICE_CAPABILITIES 0x12A9
#define CB_DEVICE_SUPPORTED_QUEUE_PROPERTIES 0x129A
#define CB_DEVICE_REQUIRED_QUEUE_PROPERTIES 0x12AA
#define CB_FLAGS 0x1293
#define CB_SIMULTANEOUS_USE (1 << 0)
#define CB_INVALID_COMMAND_BUFFER -1138
#define CB_INVALID_SYNC_POINT_WAIT_LIST -1139
#define CB_INCOMPATIBLE_COMMAND_QUEUE -1140
#define CB_QUEUES 0x1294
#define CB_NUM_QUEUES 0x1295
#define CB_REFERENCE_COUNT 0x1296
#define CB_STATE 0x1297
#define CB_PROPERTIES_ARRAY 0x1298
#define CB_CONTEXT 0x1299
#define CB_STATE_RECORDING 0
#define CB_STATE_EXECUTABLE 1
#define CB_STATE_FINALIZED 2 /* mutable dispatch 0.9.5: arguments still deferred */
#define CB_COMMAND_COMMAND_BUFFER 0x12A8

typedef cb_khr (*create_fn)(cl_uint, const cl_command_queue *, const cb_props *, cl_int *);
typedef cl_int (*cb_fn)(cb_khr);
typedef cl_int (*enqueue_fn)(cl_uint, cl_command_queue *, cb_khr, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*barrier_fn)(cb_khr, cl_command_queue, const cb_props *, cl_uint, const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*copy_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                          const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*copy_rect_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, cl_mem, const size_t *, const size_t *,
                               const size_t *, size_t, size_t, size_t, size_t, cl_uint, const cb_sync_point *,
                               cb_sync_point *, void **);
typedef cl_int (*fill_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, const void *, size_t, size_t, size_t, cl_uint,
                          const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*fill_image_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, const void *, const size_t *,
                                const size_t *, cl_uint, const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*ndrange_fn)(cb_khr, cl_command_queue, const cb_props *, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*info_fn)(cb_khr, cl_uint, size_t, void *, size_t *);

static create_fn create_cb;
static cb_fn finalize_cb, retain_cb, release_cb;
static enqueue_fn enqueue_cb;
static barrier_fn barrier_cb;
static copy_fn copy_cb;
static copy_rect_fn copy_rect_cb;
static fill_fn fill_cb;
static fill_image_fn fill_image_cb;
static ndrange_fn ndrange_cb;
static info_fn info_cb;

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static cl_program prog;
static int gpu, on_cudacl;

#define N 1024

static const char *source =
    "kernel void add1(global int *a) { a[get_global_id(0)] += 1; }\n"
    "kernel void scale(global int *a, int k) { a[get_global_id(0)] *= k; }\n";

static void (*fake_stats)(struct fakecuda_stats *);
static int (*fake_last_launch)(struct fakecuda_launch *);

static void find_fake_driver(void) {
    const char *names[] = {"libcuda.so", "libcuda.so.1"};
    for (int i = 0; i < 2 && !fake_stats; i++) {
        void *h = dlopen(names[i], RTLD_NOLOAD | RTLD_NOW);
        if (h) fake_stats = (void (*)(struct fakecuda_stats *))dlsym(h, "fakecuda_stats");
        if (h) fake_last_launch = (int (*)(struct fakecuda_launch *))dlsym(h, "fakecuda_last_launch");
    }
}

static struct fakecuda_stats stats_now(void) {
    struct fakecuda_stats s;
    memset(&s, 0, sizeof s);
    if (fake_stats) fake_stats(&s);
    return s;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *fn(const char *name) {
    void *p = clGetExtensionFunctionAddressForPlatform(plat, name);
    CHECK(p != NULL, "%s not found", name);
    return p;
}

static int load_functions(void) {
    create_cb = (create_fn)fn("clCreateCommandBufferKHR");
    finalize_cb = (cb_fn)fn("clFinalizeCommandBufferKHR");
    retain_cb = (cb_fn)fn("clRetainCommandBufferKHR");
    release_cb = (cb_fn)fn("clReleaseCommandBufferKHR");
    enqueue_cb = (enqueue_fn)fn("clEnqueueCommandBufferKHR");
    barrier_cb = (barrier_fn)fn("clCommandBarrierWithWaitListKHR");
    copy_cb = (copy_fn)fn("clCommandCopyBufferKHR");
    copy_rect_cb = (copy_rect_fn)fn("clCommandCopyBufferRectKHR");
    fill_cb = (fill_fn)fn("clCommandFillBufferKHR");
    fill_image_cb = (fill_image_fn)fn("clCommandFillImageKHR");
    ndrange_cb = (ndrange_fn)fn("clCommandNDRangeKernelKHR");
    info_cb = (info_fn)fn("clGetCommandBufferInfoKHR");
    CHECK(fn("clCommandCopyImageKHR") && fn("clCommandCopyBufferToImageKHR") && fn("clCommandCopyImageToBufferKHR"),
          "image commands");
    return create_cb && finalize_cb && retain_cb && release_cb && enqueue_cb && barrier_cb && copy_cb && copy_rect_cb &&
           fill_cb && fill_image_cb && ndrange_cb && info_cb;
}

static void device_queries(void) {
    char ext[8192] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    CHECK(strstr(ext, "cl_khr_command_buffer") != NULL, "extension not listed: %s", ext);
    cl_name_version nv[64];
    size_t size = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, sizeof nv, nv, &size), CL_SUCCESS);
    int found = 0;
    for (size_t i = 0; i < size / sizeof nv[0]; i++) {
        if (!strcmp(nv[i].name, "cl_khr_command_buffer")) {
            found = 1;
            CHECK(nv[i].version == CL_MAKE_VERSION(0, 9, 8), "version %x", nv[i].version);
        }
    }
    CHECK(found, "cl_khr_command_buffer not in CL_DEVICE_EXTENSIONS_WITH_VERSION");
    cl_ulong caps = 99, req = 99, sup = 0;
    EXPECT(clGetDeviceInfo(dev, CB_DEVICE_CAPABILITIES, sizeof caps, &caps, &size), CL_SUCCESS);
    CHECK(size == 8 && caps == 1, "capabilities %llu (%zu bytes): want kernel printf only", (unsigned long long)caps, size);
    EXPECT(clGetDeviceInfo(dev, CB_DEVICE_REQUIRED_QUEUE_PROPERTIES, sizeof req, &req, &size), CL_SUCCESS);
    CHECK(size == 8 && req == 0, "required queue properties %llu", (unsigned long long)req);
    EXPECT(clGetDeviceInfo(dev, CB_DEVICE_SUPPORTED_QUEUE_PROPERTIES, sizeof sup, &sup, &size), CL_SUCCESS);
    CHECK(sup == (CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), "supported queue properties %llu",
          (unsigned long long)sup);
}

static cl_mem buffer(size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(m != NULL, "buffer: %d", err);
    return m;
}

static int all_equal(cl_mem m, size_t count, int want, const char *what) {
    static int h[N];
    EXPECT(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, count * sizeof(int), h, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < count; i++) {
        if (h[i] != want) {
            CHECK(0, "%s[%zu] = %d, want %d", what, i, h[i], want);
            return 0;
        }
    }
    return 1;
}

/* Fill A, add1(A), copy A to B, scale(B, 3), copy a rect of B into C: with sync points. */
static void replays(void) {
    cl_int err;
    cl_mem a = buffer(N * 4), b = buffer(N * 4), c = buffer(N * 4);
    cl_kernel add1 = clCreateKernel(prog, "add1", &err), scale = clCreateKernel(prog, "scale", &err);
    cb_khr cb = create_cb(1, &queue, NULL, &err);
    CHECK(cb != NULL && err == CL_SUCCESS, "create: %d", err);
    if (!cb) return;
    cl_uint state = 9;
    EXPECT(info_cb(cb, CB_STATE, sizeof state, &state, NULL), CL_SUCCESS);
    CHECK(state == CB_STATE_RECORDING, "state %u", state);
    cb_sync_point sp[8] = {0};
    int one = 1, k = 3, hundred = 100;
    size_t global = N;
    EXPECT(fill_cb(cb, NULL, NULL, a, &one, 4, 0, N * 4, 0, NULL, &sp[0], NULL), CL_SUCCESS);
    clSetKernelArg(add1, 0, sizeof a, &a);
    EXPECT(ndrange_cb(cb, NULL, NULL, add1, 1, NULL, &global, NULL, 1, &sp[0], &sp[1], NULL), CL_SUCCESS);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, N * 4, 1, &sp[1], &sp[2], NULL), CL_SUCCESS);
    clSetKernelArg(scale, 0, sizeof b, &b);
    clSetKernelArg(scale, 1, sizeof k, &k);
    EXPECT(ndrange_cb(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 1, &sp[2], &sp[3], NULL), CL_SUCCESS);
    /* Arguments are captured when recorded: changing them now changes nothing. */
    clSetKernelArg(scale, 1, sizeof hundred, &hundred);
    EXPECT(barrier_cb(cb, NULL, NULL, 2, &sp[2], &sp[4], NULL), CL_SUCCESS);
    /* Rows of 64 ints: rows 0..15 of B to C. */
    size_t zero[3] = {0, 0, 0}, region[3] = {256, 16, 1};
    EXPECT(copy_rect_cb(cb, NULL, NULL, b, c, zero, zero, region, 256, 0, 256, 0, 1, &sp[4], &sp[5], NULL), CL_SUCCESS);
    CHECK(sp[0] && sp[1] && sp[2] && sp[3] && sp[4] && sp[5] && sp[5] != sp[4], "sync points");
    EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    EXPECT(finalize_cb(cb), CL_INVALID_OPERATION);
    EXPECT(fill_cb(cb, NULL, NULL, a, &one, 4, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(info_cb(cb, CB_STATE, sizeof state, &state, NULL), CL_SUCCESS);
    CHECK(state == CB_STATE_EXECUTABLE, "state %u", state);

    int want_a = gpu ? 2 : 1, want_b = gpu ? 6 : 1;
    struct fakecuda_stats s0 = stats_now();
    for (int r = 0; r < 5; r++) {
        cl_event e = NULL;
        EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, r == 1 ? &e : NULL), CL_SUCCESS);
        if (e) {
            EXPECT(clWaitForEvents(1, &e), CL_SUCCESS);
            cl_command_type t = 0;
            EXPECT(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL), CL_SUCCESS);
            CHECK(t == CB_COMMAND_COMMAND_BUFFER, "event command type 0x%x", t);
            clReleaseEvent(e);
        }
        all_equal(a, N, want_a, "A");
        all_equal(b, N, want_b, "B");
        all_equal(c, 64 * 16, want_b, "C");
        if (r == 2) {
            /* Host writes between replays: A is refilled by the replay anyway. */
            int junk[N];
            for (int i = 0; i < N; i++) junk[i] = -7;
            EXPECT(clEnqueueWriteBuffer(queue, a, CL_TRUE, 0, sizeof junk, junk, 0, NULL, NULL), CL_SUCCESS);
            /* A mapped and written: the next replay must still see the device data right. */
            int *p = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_WRITE, 0, N * 4, 0, NULL, NULL, &err);
            CHECK(p != NULL, "map: %d", err);
            if (p) {
                for (int i = 0; i < N; i++) p[i] = 55;
                clEnqueueUnmapMemObject(queue, b, p, 0, NULL, NULL);
            }
        }
    }
    struct fakecuda_stats s1 = stats_now();
    const char *graphs = getenv("CUDACL_COMMAND_BUFFER_GRAPHS"), *fails = getenv("FAKECUDA_CAPTURE_FAILS");
    if (fake_stats && ((graphs && !strcmp(graphs, "0")) || (fails && !strcmp(fails, "1")))) {
        CHECK(s1.graph_launches == s0.graph_launches, "graph launches with graphs off");
    } else if (fake_stats) {
        /* Replays 2, 3 and 5 (4 follows a map for writing: command by command). */
        CHECK(s1.graph_launches - s0.graph_launches == 3, "graph launches %llu",
              s1.graph_launches - s0.graph_launches);
        CHECK(s1.graphs_instantiated - s0.graphs_instantiated == 1, "graphs made %llu",
              s1.graphs_instantiated - s0.graphs_instantiated);
        CHECK(s1.launches - s0.launches == 10, "kernel launches %llu (2 a replay)", s1.launches - s0.launches);
    }
    /* A replay waiting for a user event. */
    cl_event user = clCreateUserEvent(ctx, &err), done = NULL;
    EXPECT(enqueue_cb(0, NULL, cb, 1, &user, &done), CL_SUCCESS);
    cl_int st = 0;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st > CL_COMPLETE, "ran before its user event: %d", st);
    EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &done), CL_SUCCESS);
    all_equal(b, N, want_b, "B after a deferred replay");
    clReleaseEvent(user);
    clReleaseEvent(done);
    /* The queue named at enqueue: a compatible one. */
    cl_command_queue q2 = clCreateCommandQueue(ctx, dev, 0, &err);
    EXPECT(enqueue_cb(1, &q2, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(q2);
    all_equal(c, 64 * 16, want_b, "C after a replay on another queue");
    clReleaseCommandQueue(q2);
    /* Info queries. */
    cl_uint nq = 0, refs = 0;
    cl_command_queue qs[2] = {0};
    cl_context c2 = NULL;
    size_t size = 99;
    EXPECT(info_cb(cb, CB_NUM_QUEUES, sizeof nq, &nq, NULL), CL_SUCCESS);
    CHECK(nq == 1, "num queues %u", nq);
    EXPECT(info_cb(cb, CB_QUEUES, sizeof qs, qs, &size), CL_SUCCESS);
    CHECK(size == sizeof(cl_command_queue) && qs[0] == queue, "queues");
    EXPECT(info_cb(cb, CB_CONTEXT, sizeof c2, &c2, NULL), CL_SUCCESS);
    CHECK(c2 == ctx, "context");
    EXPECT(info_cb(cb, CB_PROPERTIES_ARRAY, 0, NULL, &size), CL_SUCCESS);
    CHECK(size == 0, "properties array of NULL: %zu bytes", size);
    EXPECT(retain_cb(cb), CL_SUCCESS);
    EXPECT(info_cb(cb, CB_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    CHECK(refs == 2, "refs %u", refs);
    EXPECT(info_cb(cb, CB_REFERENCE_COUNT, 1, &refs, NULL), CL_INVALID_VALUE);
    EXPECT(info_cb(cb, 0x1234, sizeof refs, &refs, NULL), CL_INVALID_VALUE);
    EXPECT(release_cb(cb), CL_SUCCESS);
    EXPECT(release_cb(cb), CL_SUCCESS);
    EXPECT(release_cb(cb), CB_INVALID_COMMAND_BUFFER);
    EXPECT(info_cb(cb, CB_STATE, sizeof state, &state, NULL), CB_INVALID_COMMAND_BUFFER);
    clFinish(queue);
    clReleaseKernel(add1);
    clReleaseKernel(scale);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}

/* A buffer that cannot be a graph (an 8-byte fill pattern) replays command by command. */
static void plain_replays(void) {
    cl_int err;
    cl_mem a = buffer(N * 4);
    cb_khr cb = create_cb(1, &queue, NULL, &err);
    if (!cb) return;
    int pat[2] = {7, 9};
    EXPECT(fill_cb(cb, NULL, NULL, a, pat, 8, 0, N * 4, 0, NULL, NULL, NULL), CL_SUCCESS);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    struct fakecuda_stats s0 = stats_now();
    for (int r = 0; r < 3; r++) EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    struct fakecuda_stats s1 = stats_now();
    if (fake_stats) CHECK(s1.graph_launches == s0.graph_launches, "an 8-byte fill went into a graph");
    static int h[N];
    EXPECT(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL), CL_SUCCESS);
    CHECK(h[0] == 7 && h[1] == 9 && h[N - 2] == 7 && h[N - 1] == 9, "pattern %d %d", h[0], h[1]);
    release_cb(cb);
    clReleaseMemObject(a);
}

typedef cl_int (*image_copy_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, cl_mem, const size_t *, const size_t *,
                                const size_t *, cl_uint, const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*to_image_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, cl_mem, size_t, const size_t *,
                              const size_t *, cl_uint, const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*to_buffer_fn)(cb_khr, cl_command_queue, const cb_props *, cl_mem, cl_mem, const size_t *, const size_t *,
                               size_t, cl_uint, const cb_sync_point *, cb_sync_point *, void **);

/* Image commands: fill, image to buffer, buffer to image, image to image; replayed command by
 * command (never a graph). */
static void images(void) {
    image_copy_fn copy_image_cb = (image_copy_fn)fn("clCommandCopyImageKHR");
    to_image_fn to_image_cb = (to_image_fn)fn("clCommandCopyBufferToImageKHR");
    to_buffer_fn to_buffer_cb = (to_buffer_fn)fn("clCommandCopyImageToBufferKHR");
    if (!copy_image_cb || !to_image_cb || !to_buffer_cb) return;
    cl_int err;
    cl_image_format f = {CL_R, CL_SIGNED_INT32};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D, d.image_width = 16, d.image_height = 16;
    cl_mem im[3];
    for (int i = 0; i < 3; i++) {
        im[i] = clCreateImage(ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &err);
        CHECK(im[i] != NULL, "image: %d", err);
        if (!im[i]) return;
    }
    cl_mem x = buffer(256 * 4), y = buffer(256 * 4), z = buffer(256 * 4);
    cb_khr cb = create_cb(1, &queue, NULL, &err);
    if (!cb) return;
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 16, 1}, bad_region[3] = {17, 16, 1};
    cl_int color[4] = {5, 0, 0, 0};
    int nine = 9;
    cb_sync_point sp[6] = {0};
    EXPECT(fill_image_cb(cb, NULL, NULL, im[0], color, origin, region, 0, NULL, &sp[0], NULL), CL_SUCCESS);
    EXPECT(to_buffer_cb(cb, NULL, NULL, im[0], x, origin, region, 0, 1, &sp[0], &sp[1], NULL), CL_SUCCESS);
    EXPECT(fill_cb(cb, NULL, NULL, y, &nine, 4, 0, 256 * 4, 0, NULL, &sp[2], NULL), CL_SUCCESS);
    EXPECT(to_image_cb(cb, NULL, NULL, y, im[1], 0, origin, region, 1, &sp[2], &sp[3], NULL), CL_SUCCESS);
    EXPECT(copy_image_cb(cb, NULL, NULL, im[1], im[2], origin, origin, region, 1, &sp[3], &sp[4], NULL), CL_SUCCESS);
    EXPECT(to_buffer_cb(cb, NULL, NULL, im[2], z, origin, region, 0, 1, &sp[4], &sp[5], NULL), CL_SUCCESS);
    /* Their errors. */
    EXPECT(fill_image_cb(cb, NULL, NULL, im[0], NULL, origin, region, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(fill_image_cb(cb, NULL, NULL, im[0], color, origin, bad_region, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(to_buffer_cb(cb, NULL, NULL, x, z, origin, region, 0, 0, NULL, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(to_buffer_cb(cb, NULL, NULL, im[0], x, origin, region, 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(to_image_cb(cb, NULL, NULL, y, im[1], 0, origin, bad_region, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(copy_image_cb(cb, NULL, NULL, im[1], im[1], origin, origin, region, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    struct fakecuda_stats s0 = stats_now();
    for (int r = 0; r < 3; r++) {
        EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
        all_equal(x, 256, 5, "image to buffer");
        all_equal(z, 256, 9, "buffer to image to image to buffer");
        /* Changed between replays: the replay restores them. */
        int zero = 0;
        clEnqueueFillBuffer(queue, x, &zero, 4, 0, 256 * 4, 0, NULL, NULL);
        clEnqueueFillBuffer(queue, z, &zero, 4, 0, 256 * 4, 0, NULL, NULL);
    }
    struct fakecuda_stats s1 = stats_now();
    if (fake_stats) CHECK(s1.graph_launches == s0.graph_launches, "image commands went into a graph");
    release_cb(cb);
    for (int i = 0; i < 3; i++) clReleaseMemObject(im[i]);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clReleaseMemObject(z);
}

typedef cl_int (*svm_copy_fn)(cb_khr, cl_command_queue, const cb_props *, void *, const void *, size_t, cl_uint,
                              const cb_sync_point *, cb_sync_point *, void **);
typedef cl_int (*svm_fill_fn)(cb_khr, cl_command_queue, const cb_props *, void *, const void *, size_t, size_t, cl_uint,
                              const cb_sync_point *, cb_sync_point *, void **);

/* SVM commands (0.9.4): a fill and a copy between coarse-grain SVM allocations. */
static void svm(void) {
    svm_copy_fn svm_copy_cb = (svm_copy_fn)fn("clCommandSVMMemcpyKHR");
    svm_fill_fn svm_fill_cb = (svm_fill_fn)fn("clCommandSVMMemFillKHR");
    if (!svm_copy_cb || !svm_fill_cb) return;
    int *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * 4, 0), *q = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * 4, 0);
    CHECK(p && q, "clSVMAlloc");
    if (!p || !q) return;
    cl_int err;
    cb_khr cb = create_cb(1, &queue, NULL, &err);
    if (!cb) return;
    int three = 3;
    cb_sync_point sp = 0;
    EXPECT(svm_fill_cb(cb, NULL, NULL, p, &three, 4, N * 4, 0, NULL, &sp, NULL), CL_SUCCESS);
    EXPECT(svm_copy_cb(cb, NULL, NULL, q, p, N * 4, 1, &sp, NULL, NULL), CL_SUCCESS);
    EXPECT(svm_copy_cb(cb, NULL, NULL, q, q + 1, 8, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(svm_copy_cb(cb, NULL, NULL, NULL, p, 8, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(svm_fill_cb(cb, NULL, NULL, p, &three, 3, 12, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    for (int r = 0; r < 3; r++) {
        EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, q, N * 4, 0, NULL, NULL), CL_SUCCESS);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += q[i] != 3;
        CHECK(bad == 0, "replay %d: %d SVM values wrong (q[0] = %d)", r, bad, q[0]);
        for (int i = 0; i < N; i++) q[i] = -1;
        EXPECT(clEnqueueSVMUnmap(queue, q, 0, NULL, NULL), CL_SUCCESS);
    }
    clFinish(queue);
    release_cb(cb);
    clSVMFree(ctx, p);
    clSVMFree(ctx, q);
}

static void errors(void) {
    cl_int err = 0;
    cl_mem a = buffer(N * 4), b = buffer(N * 4);
    cl_kernel add1 = clCreateKernel(prog, "add1", &err);
    size_t global = N;
    int one = 1;
    /* clCreateCommandBufferKHR. */
    CHECK(create_cb(0, &queue, NULL, &err) == NULL && err == CL_INVALID_VALUE, "0 queues: %d", err);
    CHECK(create_cb(1, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE, "NULL queues: %d", err);
    cl_command_queue bad = (cl_command_queue)&one;
    CHECK(create_cb(1, &bad, NULL, &err) == NULL && err == CL_INVALID_COMMAND_QUEUE, "bad queue: %d", err);
    cb_props p_bad[] = {CB_FLAGS, 1 << 7, 0}, p_sim[] = {CB_FLAGS, CB_SIMULTANEOUS_USE, 0};
    cb_props p_dup[] = {CB_FLAGS, 0, CB_FLAGS, 0, 0}, p_name[] = {0x4321, 0, 0}, p_ok[] = {CB_FLAGS, 0, 0};
    cb_props p_dup_sim[] = {CB_FLAGS, CB_SIMULTANEOUS_USE, CB_FLAGS, CB_SIMULTANEOUS_USE, 0};
    cb_props p_neg[] = {CB_FLAGS, (cb_props)(cl_long)CL_INVALID_PROPERTY, 0};
    CHECK(create_cb(1, &queue, p_dup_sim, &err) == NULL && err == CL_INVALID_VALUE, "duplicate flags: %d", err);
    CHECK(create_cb(1, &queue, p_neg, &err) == NULL && err == CL_INVALID_VALUE, "flags -64: %d", err);
    /* An out-of-order queue (run in order): a buffer replayed there, not on an in-order one. */
    cl_command_queue ooo = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    cb_khr ocb = create_cb(1, &ooo, NULL, &err);
    CHECK(ocb != NULL && err == CL_SUCCESS, "out-of-order queue: %d", err);
    if (ocb) {
        cb_sync_point s1 = 0;
        EXPECT(fill_cb(ocb, NULL, NULL, a, &one, 4, 0, N * 4, 0, NULL, &s1, NULL), CL_SUCCESS);
        EXPECT(copy_cb(ocb, NULL, NULL, a, b, 0, 0, N * 4, 1, &s1, NULL, NULL), CL_SUCCESS);
        EXPECT(finalize_cb(ocb), CL_SUCCESS);
        EXPECT(enqueue_cb(0, NULL, ocb, 0, NULL, NULL), CL_SUCCESS);
        clFinish(ooo);
        /* Substituted by an in-order queue of the same device: compatible (0.9.7 and later). */
        EXPECT(enqueue_cb(1, &queue, ocb, 0, NULL, NULL), CL_SUCCESS);
        clFinish(queue);
        all_equal(b, N, 1, "B after an out-of-order replay");
        release_cb(ocb);
    }
    clReleaseCommandQueue(ooo);
    cl_command_queue prof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    cb_khr pcb = create_cb(1, &prof, NULL, &err);
    CHECK(pcb != NULL && err == CL_SUCCESS, "profiling queue: %d", err);
    if (pcb) release_cb(pcb);
    clReleaseCommandQueue(prof);
    CHECK(create_cb(1, &queue, p_bad, &err) == NULL && err == CL_INVALID_VALUE, "unknown flag: %d", err);
    CHECK(create_cb(1, &queue, p_sim, &err) == NULL && err == CL_INVALID_PROPERTY, "simultaneous use: %d", err);
    CHECK(create_cb(1, &queue, p_dup, &err) == NULL && err == CL_INVALID_VALUE, "duplicate: %d", err);
    CHECK(create_cb(1, &queue, p_name, &err) == NULL && err == CL_INVALID_VALUE, "unknown property: %d", err);
    cb_khr cb = create_cb(1, &queue, p_ok, &err);
    CHECK(cb != NULL && err == CL_SUCCESS, "flags 0: %d", err);
    if (!cb) return;
    size_t size = 0;
    cb_props back[4] = {0};
    EXPECT(info_cb(cb, CB_PROPERTIES_ARRAY, sizeof back, back, &size), CL_SUCCESS);
    CHECK(size == 3 * sizeof(cb_props) && back[0] == CB_FLAGS && back[2] == 0, "properties array %zu", size);
    /* Recording. */
    cb_sync_point sp = 0, undefined = 99;
    void *handle = NULL;
    cb_props cmd_props[] = {0x12B1, 1, 0};
    EXPECT(copy_cb(NULL, NULL, NULL, a, b, 0, 0, 4, 0, NULL, NULL, NULL), CB_INVALID_COMMAND_BUFFER);
    EXPECT(copy_cb(cb, queue, NULL, a, b, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(copy_cb(cb, NULL, cmd_props, a, b, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, 4, 0, NULL, NULL, &handle), CL_INVALID_VALUE);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, 4, 1, NULL, NULL, NULL), CB_INVALID_SYNC_POINT_WAIT_LIST);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, 4, 0, &undefined, NULL, NULL), CB_INVALID_SYNC_POINT_WAIT_LIST);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, 4, 1, &undefined, NULL, NULL), CB_INVALID_SYNC_POINT_WAIT_LIST);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 0, 0, 0, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(copy_cb(cb, NULL, NULL, a, b, 4, 0, N * 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(copy_cb(cb, NULL, NULL, a, a, 0, 4, 8, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(copy_cb(cb, NULL, NULL, (cl_mem)&one, b, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(fill_cb(cb, NULL, NULL, a, &one, 3, 0, 12, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(fill_cb(cb, NULL, NULL, a, NULL, 4, 0, 12, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(fill_cb(cb, NULL, NULL, a, &one, 4, 0, N * 4 + 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    size_t zero[3] = {0, 0, 0}, region[3] = {64, 2, 1};
    EXPECT(copy_rect_cb(cb, NULL, NULL, a, b, zero, zero, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(copy_rect_cb(cb, NULL, NULL, a, a, zero, zero, region, 64, 0, 64, 0, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(ndrange_cb(cb, NULL, NULL, add1, 1, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    clSetKernelArg(add1, 0, sizeof a, &a);
    EXPECT(ndrange_cb(cb, NULL, NULL, NULL, 1, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_KERNEL);
    EXPECT(ndrange_cb(cb, NULL, NULL, add1, 0, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    /* No global size: an empty range (OpenCL 2.1+), recorded as a launch of nothing. */
    EXPECT(ndrange_cb(cb, NULL, NULL, add1, 1, NULL, NULL, NULL, 0, NULL, NULL, NULL), CL_SUCCESS);
    /* A mutable handle (cl_khr_command_buffer_mutable_dispatch) is given for kernels only. */
    EXPECT(ndrange_cb(cb, NULL, NULL, add1, 1, NULL, &global, NULL, 0, NULL, NULL, &handle), CL_SUCCESS);
    CHECK(handle != NULL, "no mutable handle");
    cb_props bad_fields[] = {0x12B1, 1 << 26, 0}, dup_fields[] = {0x12B1, 8, 0x12B1, 8, 0}, not_kernel[] = {0x1293, 0, 0};
    EXPECT(ndrange_cb(cb, NULL, bad_fields, add1, 1, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(ndrange_cb(cb, NULL, dup_fields, add1, 1, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(ndrange_cb(cb, NULL, not_kernel, add1, 1, NULL, &global, NULL, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
    float color[4] = {0};
    EXPECT(fill_image_cb(cb, NULL, NULL, a, color, zero, region, 0, NULL, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(barrier_cb(cb, NULL, NULL, 0, NULL, &sp, NULL), CL_SUCCESS);
    EXPECT(barrier_cb(cb, NULL, NULL, 1, &sp, &sp, NULL), CL_SUCCESS);
    /* Another context's buffer. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(copy_cb(cb, NULL, NULL, foreign, b, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_CONTEXT);
    /* Enqueueing. */
    EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    EXPECT(finalize_cb(NULL), CB_INVALID_COMMAND_BUFFER);
    EXPECT(enqueue_cb(0, NULL, NULL, 0, NULL, NULL), CB_INVALID_COMMAND_BUFFER);
    EXPECT(enqueue_cb(1, NULL, cb, 0, NULL, NULL), CL_INVALID_VALUE);
    cl_command_queue qs[1] = {queue};
    EXPECT(enqueue_cb(0, qs, cb, 0, NULL, NULL), CL_INVALID_VALUE);
    qs[0] = bad;
    EXPECT(enqueue_cb(1, qs, cb, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    /* Another queue of the device, whatever its properties: compatible. */
    qs[0] = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_event pe = NULL;
    EXPECT(enqueue_cb(1, qs, cb, 0, NULL, &pe), CL_SUCCESS);
    if (pe) {
        cl_ulong t0 = 0, t1 = 0;
        EXPECT(clWaitForEvents(1, &pe), CL_SUCCESS);
        EXPECT(clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL), CL_SUCCESS);
        EXPECT(clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL), CL_SUCCESS);
        CHECK(t0 && t1 >= t0, "profiled replay: start %llu end %llu", (unsigned long long)t0, (unsigned long long)t1);
        clReleaseEvent(pe);
    }
    clReleaseCommandQueue(qs[0]);
    qs[0] = clCreateCommandQueue(other, dev, 0, &err);
    EXPECT(enqueue_cb(1, qs, cb, 0, NULL, NULL), CL_INVALID_CONTEXT);
    clReleaseCommandQueue(qs[0]);
    EXPECT(enqueue_cb(0, NULL, cb, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    release_cb(cb);
    clReleaseMemObject(foreign);
    clReleaseContext(other);
    clReleaseKernel(add1);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/* K small kernels (256 work-items each, one add): R replays of a command buffer holding them
 * against R times K clEnqueueNDRangeKernel. */
static void timing(int K, int R) {
    cl_int err;
    cl_mem d = buffer(256 * 4);
    int zero = 0;
    clEnqueueFillBuffer(queue, d, &zero, 4, 0, 256 * 4, 0, NULL, NULL);
    cl_kernel add1 = clCreateKernel(prog, "add1", &err);
    clSetKernelArg(add1, 0, sizeof d, &d);
    size_t global = 256, local = 64;
    cb_khr cb = create_cb(1, &queue, NULL, &err);
    if (!cb) return;
    for (int i = 0; i < K; i++) ndrange_cb(cb, NULL, NULL, add1, 1, NULL, &global, &local, 0, NULL, NULL, NULL);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    /* Warm-up: the first replay is command by command, the second captures the graph. */
    enqueue_cb(0, NULL, cb, 0, NULL, NULL);
    enqueue_cb(0, NULL, cb, 0, NULL, NULL);
    for (int i = 0; i < K; i++) clEnqueueNDRangeKernel(queue, add1, 1, NULL, &global, &local, 0, NULL, NULL);
    clFinish(queue);
    double t0 = now_us();
    for (int r = 0; r < R; r++) EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    double t1 = now_us();
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < K; i++) clEnqueueNDRangeKernel(queue, add1, 1, NULL, &global, &local, 0, NULL, NULL);
    }
    clFinish(queue);
    double t2 = now_us();
    printf("timing: %d kernels x %d replays: command buffer %.2f us/kernel, one by one %.2f us/kernel (%.1fx)\n", K, R,
           (t1 - t0) / (K * R), (t2 - t1) / (K * R), (t2 - t1) / (t1 - t0 > 0 ? t1 - t0 : 1));
    if (gpu) all_equal(d, 256, (2 + 1 + 2 * R) * K, "D after the timing runs");
    release_cb(cb);
    clReleaseKernel(add1);
    clReleaseMemObject(d);
}

/* cl_khr_command_buffer_mutable_dispatch 0.9.5: types and values from the same cl_ext.h. */
typedef struct {
    cl_uint arg_index;
    size_t arg_size;
    const void *arg_value;
} md_arg;
typedef struct {
    void *command;
    cl_uint num_args, num_svm_args, num_exec_infos, work_dim;
    const md_arg *arg_list, *arg_svm_list;
    const void *exec_info_list;
    const size_t *global_work_offset, *global_work_size, *local_work_size;
} md_config;
typedef cl_int (*update_fn)(cb_khr, cl_uint, const cl_uint *, const void **);
typedef cl_int (*mc_info_fn)(void *, cl_uint, size_t, void *, size_t *);
#define MD_CAPABILITIES 0x12B0
#define MD_UPDATABLE_FIELDS 0x12B1
#define MD_GLOBAL_OFFSET (1 << 0)
#define MD_GLOBAL_SIZE (1 << 1)
#define MD_LOCAL_SIZE (1 << 2)
#define MD_ARGUMENTS (1 << 3)
#define MD_EXEC_INFO (1 << 4)
#define CB_MUTABLE (1 << 1)
#define MD_INVALID_MUTABLE_COMMAND -1141
#define MC_QUEUE 0x12A0
#define MC_BUFFER 0x12A1
#define MC_TYPE 0x12AD
#define MC_PROPERTIES 0x12A2
#define MC_KERNEL 0x12A3
#define MC_DIMENSIONS 0x12A4
#define MC_GLOBAL_OFFSET 0x12A5
#define MC_GLOBAL_SIZE 0x12A6
#define MC_LOCAL_SIZE 0x12A7

/* Whether the last launch's parameter buffer holds the 4-byte value `v` (fake driver only). */
static int last_params_hold(int v) {
    struct fakecuda_launch l;
    if (!fake_last_launch || !fake_last_launch(&l)) return -1;
    for (size_t i = 0; i + 4 <= l.param_size; i += 4) {
        int x;
        memcpy(&x, l.params + i, 4);
        if (x == v) return 1;
    }
    return 0;
}

static void mutable_dispatch(void) {
    update_fn update = (update_fn)fn("clUpdateMutableCommandsKHR");
    mc_info_fn mc_info = (mc_info_fn)fn("clGetMutableCommandInfoKHR");
    if (!update || !mc_info) return;
    cl_ulong caps = 0;
    EXPECT(clGetDeviceInfo(dev, MD_CAPABILITIES, sizeof caps, &caps, NULL), CL_SUCCESS);
    CHECK(caps == (MD_GLOBAL_OFFSET | MD_GLOBAL_SIZE | MD_LOCAL_SIZE | MD_ARGUMENTS | MD_EXEC_INFO), "capabilities %llu",
          (unsigned long long)caps);
    cl_name_version nv[64];
    size_t size = 0;
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, sizeof nv, nv, &size);
    int found = 0;
    for (size_t i = 0; i < size / sizeof nv[0]; i++) {
        if (!strcmp(nv[i].name, "cl_khr_command_buffer_mutable_dispatch")) {
            found = 1;
            CHECK(nv[i].version == CL_MAKE_VERSION(0, 9, 5), "mutable dispatch version %x", nv[i].version);
        }
    }
    CHECK(found, "cl_khr_command_buffer_mutable_dispatch not listed");

    cl_int err;
    cl_mem b = buffer(N * 4), c = buffer(N * 4);
    cl_kernel scale = clCreateKernel(prog, "scale", &err);
    const int k0 = 0x1234567, k1 = 0x7654321;
    clSetKernelArg(scale, 0, sizeof b, &b);
    clSetKernelArg(scale, 1, sizeof k0, &k0);
    cb_props flags[] = {CB_FLAGS, CB_MUTABLE, 0};
    cb_khr cb = create_cb(1, &queue, flags, &err);
    cb_khr plain = create_cb(1, &queue, NULL, &err);
    CHECK(cb && plain, "create: %d", err);
    if (!cb || !plain) return;
    int one = 1;
    size_t global = N, half = N / 2, local = 64;
    cb_props fields[] = {MD_UPDATABLE_FIELDS, MD_ARGUMENTS | MD_GLOBAL_SIZE, 0};
    void *mc = NULL, *mc_plain = NULL;
    cb_sync_point sp = 0;
    EXPECT(fill_cb(cb, NULL, NULL, b, &one, 4, 0, N * 4, 0, NULL, &sp, NULL), CL_SUCCESS);
    EXPECT(fill_cb(cb, NULL, NULL, c, &one, 4, 0, N * 4, 0, NULL, NULL, NULL), CL_SUCCESS);
    EXPECT(ndrange_cb(cb, NULL, fields, scale, 1, NULL, &global, NULL, 1, &sp, NULL, &mc), CL_SUCCESS);
    EXPECT(ndrange_cb(plain, NULL, NULL, scale, 1, NULL, &global, &local, 0, NULL, NULL, &mc_plain), CL_SUCCESS);
    md_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.command = mc;
    md_arg args[2] = {{0, sizeof c, &c}, {1, sizeof k1, &k1}};
    cfg.num_args = 2, cfg.arg_list = args;
    cl_uint type = 0;
    const void *cfgs[1] = {&cfg};
    /* Not finalized yet; then a buffer made without CL_COMMAND_BUFFER_MUTABLE_KHR. */
    EXPECT(update(cb, 1, &type, cfgs), CL_INVALID_OPERATION);
    EXPECT(finalize_cb(cb), CL_SUCCESS);
    EXPECT(finalize_cb(plain), CL_SUCCESS);
    md_config pcfg = cfg;
    pcfg.command = mc_plain;
    const void *pcfgs[1] = {&pcfg};
    EXPECT(update(plain, 1, &type, pcfgs), CL_INVALID_OPERATION);

    /* Info. */
    cl_command_queue iq = NULL;
    cb_khr ib = NULL;
    cl_command_type it = 0;
    cl_kernel ik = NULL;
    cl_uint idim = 0;
    size_t ig[3] = {0}, il[3] = {9, 9, 9};
    cb_props ip[4] = {0};
    EXPECT(mc_info(mc, MC_QUEUE, sizeof iq, &iq, NULL), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_BUFFER, sizeof ib, &ib, NULL), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_TYPE, sizeof it, &it, NULL), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_KERNEL, sizeof ik, &ik, NULL), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_DIMENSIONS, sizeof idim, &idim, NULL), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_GLOBAL_SIZE, sizeof ig, ig, &size), CL_SUCCESS);
    CHECK(size == sizeof(size_t) && ig[0] == N, "global size %zu (%zu bytes)", ig[0], size);
    EXPECT(mc_info(mc, MC_LOCAL_SIZE, sizeof il, il, &size), CL_SUCCESS);
    CHECK(size == sizeof(size_t) && il[0] == 0, "local size of NULL: %zu", il[0]);
    EXPECT(mc_info(mc, MC_PROPERTIES, sizeof ip, ip, &size), CL_SUCCESS);
    CHECK(size == 3 * sizeof(cb_props) && ip[0] == MD_UPDATABLE_FIELDS && ip[2] == 0, "properties %zu bytes", size);
    CHECK(iq == queue && ib == cb && it == CL_COMMAND_NDRANGE_KERNEL && ik == scale && idim == 1, "info");
    EXPECT(mc_info(mc, MC_GLOBAL_SIZE, 1, ig, NULL), CL_INVALID_VALUE);
    EXPECT(mc_info(mc, 0x1234, sizeof ig, ig, NULL), CL_INVALID_VALUE);
    EXPECT(mc_info(NULL, MC_TYPE, sizeof it, &it, NULL), MD_INVALID_MUTABLE_COMMAND);

    /* Replays before and after updates: scale(b, k0), then scale(c, k1) on half the items. */
    struct fakecuda_stats s0 = stats_now();
    for (int r = 0; r < 3; r++) EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    if (fake_last_launch) CHECK(last_params_hold(k0) == 1 && last_params_hold(k1) == 0, "launch before the update");
    if (gpu) {
        all_equal(b, N, k0, "B before the update");
        all_equal(c, N, 1, "C before the update");
    }
    cfg.global_work_size = &half;
    EXPECT(update(cb, 1, &type, cfgs), CL_SUCCESS);
    EXPECT(mc_info(mc, MC_GLOBAL_SIZE, sizeof ig, ig, NULL), CL_SUCCESS);
    CHECK(ig[0] == N / 2, "global size after the update: %zu", ig[0]);
    for (int r = 0; r < 3; r++) EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    struct fakecuda_stats s1 = stats_now();
    if (fake_last_launch) CHECK(last_params_hold(k1) == 1 && last_params_hold(k0) == 0, "launch after the update");
    if (fake_stats) CHECK(s1.graphs_instantiated - s0.graphs_instantiated == 2, "graphs made %llu (want one per configuration)",
                          s1.graphs_instantiated - s0.graphs_instantiated);
    if (gpu) {
        static int h[N];
        EXPECT(clEnqueueReadBuffer(queue, c, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL), CL_SUCCESS);
        CHECK(h[0] == k1 && h[N / 2 - 1] == k1 && h[N / 2] == 1 && h[N - 1] == 1, "C after the update: %d %d %d", h[0],
              h[N / 2 - 1], h[N / 2]);
        all_equal(b, N, 1, "B after the update (filled, no longer scaled)");
    }

    /* One command configured twice in one call: the second applies over the first. */
    md_config twice[2];
    memset(twice, 0, sizeof twice);
    twice[0].command = twice[1].command = mc;
    md_arg first = {1, sizeof k0, &k0};
    twice[0].num_args = 1, twice[0].arg_list = &first;
    twice[1].global_work_size = &global;
    const void *tw[2] = {&twice[0], &twice[1]};
    cl_uint types_tw[2] = {0, 0};
    EXPECT(update(cb, 2, types_tw, tw), CL_SUCCESS);
    EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    if (fake_last_launch) CHECK(last_params_hold(k0) == 1, "the first configuration of a command was lost");
    EXPECT(mc_info(mc, MC_GLOBAL_SIZE, sizeof ig, ig, NULL), CL_SUCCESS);
    CHECK(ig[0] == N, "global size after two configurations: %zu", ig[0]);
    cfg.global_work_size = &half;
    EXPECT(update(cb, 1, &type, cfgs), CL_SUCCESS);

    /* Errors: nothing of a failing update is kept. */
    EXPECT(update(NULL, 1, &type, cfgs), CB_INVALID_COMMAND_BUFFER);
    EXPECT(update(cb, 1, NULL, cfgs), CL_INVALID_VALUE);
    EXPECT(update(cb, 1, &type, NULL), CL_INVALID_VALUE);
    EXPECT(update(cb, 0, &type, cfgs), CL_INVALID_VALUE);
    cl_uint bad_type = 7;
    EXPECT(update(cb, 1, &bad_type, cfgs), CL_INVALID_VALUE);
    const void *null_cfg[1] = {NULL};
    EXPECT(update(cb, 1, &type, null_cfg), CL_INVALID_VALUE);
    md_config e = cfg;
    e.command = mc_plain; /* another buffer's command */
    const void *ecfgs[2] = {&cfg, &e};
    cl_uint types2[2] = {0, 0};
    size_t quarter = N / 4;
    cfg.global_work_size = &quarter;
    EXPECT(update(cb, 2, types2, ecfgs), MD_INVALID_MUTABLE_COMMAND);
    EXPECT(mc_info(mc, MC_GLOBAL_SIZE, sizeof ig, ig, NULL), CL_SUCCESS);
    CHECK(ig[0] == N / 2, "a failed update changed the global size to %zu", ig[0]);
    e = cfg;
    e.local_work_size = &local; /* not updatable */
    const void *e1[1] = {&e};
    EXPECT(update(cb, 1, &type, e1), CL_INVALID_OPERATION);
    e = cfg;
    e.work_dim = 2;
    EXPECT(update(cb, 1, &type, e1), CL_INVALID_VALUE);
    e = cfg;
    md_arg bad_arg = {9, sizeof k1, &k1};
    e.arg_list = &bad_arg, e.num_args = 1;
    EXPECT(update(cb, 1, &type, e1), CL_INVALID_ARG_INDEX);
    e = cfg;
    e.num_args = 1, e.arg_list = NULL;
    EXPECT(update(cb, 1, &type, e1), CL_INVALID_VALUE);
    e = cfg;
    size_t too_big = (size_t)1 << 40;
    e.global_work_size = &too_big;
    CHECK(update(cb, 1, &type, e1) != CL_SUCCESS, "global size 2^40 accepted");

    /* Arguments deferred to an update: the buffer cannot be enqueued until they are set. */
    cl_kernel fresh = clCreateKernel(prog, "scale", &err);
    cb_khr dcb = create_cb(1, &queue, flags, &err);
    void *dmc = NULL;
    EXPECT(ndrange_cb(dcb, NULL, NULL, fresh, 1, NULL, &global, NULL, 0, NULL, NULL, &dmc), CL_SUCCESS);
    cb_props no_args[] = {MD_UPDATABLE_FIELDS, MD_GLOBAL_SIZE, 0};
    EXPECT(ndrange_cb(dcb, NULL, no_args, fresh, 1, NULL, &global, NULL, 0, NULL, NULL, &dmc), CL_INVALID_KERNEL_ARGS);
    EXPECT(finalize_cb(dcb), CL_SUCCESS);
    EXPECT(enqueue_cb(0, NULL, dcb, 0, NULL, NULL), CL_INVALID_OPERATION);
    cl_uint dstate = 0;
    EXPECT(info_cb(dcb, CB_STATE, sizeof dstate, &dstate, NULL), CL_SUCCESS);
    CHECK(dstate == CB_STATE_FINALIZED, "deferred arguments: state %u", dstate);
    md_config d;
    memset(&d, 0, sizeof d);
    d.command = dmc;
    md_arg dargs[2] = {{0, sizeof b, &b}, {1, sizeof k0, &k0}};
    d.num_args = 1, d.arg_list = dargs;
    const void *dcfgs[1] = {&d};
    EXPECT(update(dcb, 1, &type, dcfgs), CL_SUCCESS);
    EXPECT(enqueue_cb(0, NULL, dcb, 0, NULL, NULL), CL_INVALID_OPERATION); /* argument 1 still unset */
    d.num_args = 2;
    EXPECT(update(dcb, 1, &type, dcfgs), CL_SUCCESS);
    EXPECT(info_cb(dcb, CB_STATE, sizeof dstate, &dstate, NULL), CL_SUCCESS);
    CHECK(dstate == CB_STATE_EXECUTABLE, "arguments set: state %u", dstate);
    EXPECT(enqueue_cb(0, NULL, dcb, 0, NULL, NULL), CL_SUCCESS);
    clFinish(queue);
    if (fake_last_launch) CHECK(last_params_hold(k0) == 1, "deferred arguments' launch");

    /* Handles go with their buffer. */
    release_cb(dcb);
    EXPECT(mc_info(dmc, MC_TYPE, sizeof it, &it, NULL), MD_INVALID_MUTABLE_COMMAND);
    release_cb(cb);
    release_cb(plain);
    EXPECT(mc_info(mc, MC_TYPE, sizeof it, &it, NULL), MD_INVALID_MUTABLE_COMMAND);
    clReleaseKernel(fresh);
    clReleaseKernel(scale);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}

/* Two devices (FAKECUDA_DEVICES=2, or two GPUs): a queue of the other device is incompatible,
 * and a buffer of a two-device context replays command by command, right. */
static void two_devices(void) {
    cl_device_id ds[2];
    cl_command_queue qs[2];
    cl_context c = two_gpu_context(plat, "two devices", ds, qs);
    if (!c) return;
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err), m2 = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cb_khr cb = create_cb(1, &qs[0], NULL, &err);
    CHECK(cb != NULL, "create: %d", err);
    if (cb) {
        int seven = 7;
        cb_sync_point sp = 0;
        EXPECT(fill_cb(cb, NULL, NULL, m, &seven, 4, 0, N * 4, 0, NULL, &sp, NULL), CL_SUCCESS);
        EXPECT(copy_cb(cb, NULL, NULL, m, m2, 0, 0, N * 4, 1, &sp, NULL, NULL), CL_SUCCESS);
        EXPECT(finalize_cb(cb), CL_SUCCESS);
        EXPECT(enqueue_cb(1, &qs[1], cb, 0, NULL, NULL), CB_INCOMPATIBLE_COMMAND_QUEUE);
        struct fakecuda_stats s0 = stats_now();
        for (int r = 0; r < 3; r++) EXPECT(enqueue_cb(0, NULL, cb, 0, NULL, NULL), CL_SUCCESS);
        struct fakecuda_stats s1 = stats_now();
        if (fake_stats) CHECK(s1.graph_launches == s0.graph_launches, "a two-device context's buffer went into a graph");
        static int h[N];
        /* Read on the other device: the data moves there. */
        EXPECT(clEnqueueReadBuffer(qs[1], m2, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL), CL_SUCCESS);
        CHECK(h[0] == 7 && h[N - 1] == 7, "two-device replay: %d %d", h[0], h[N - 1]);
        release_cb(cb);
    }
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    clReleaseCommandQueue(qs[0]);
    clReleaseCommandQueue(qs[1]);
    clReleaseContext(c);
}

static void CL_CALLBACK notify(const char *msg, const void *info, size_t size, void *data) {
    (void)info, (void)size, (void)data;
    printf("context notification: %s\n", msg);
}

int main(int argc, char **argv) {
    gpu = argc > 1 && !strcmp(argv[1], "gpu");
    find_fake_driver();
    plat = find_platform();
    dev = find_gpu(plat);
    if (!dev) {
        printf("no device\n");
        return 1;
    }
    cl_int err;
    /* cudacl says through the context's callback when a buffer could not become a CUDA graph. */
    ctx = clCreateContext(NULL, 1, &dev, notify, NULL, &err);
    queue = clCreateCommandQueue(ctx, dev, 0, &err);
    if (!load_functions()) return report("command_buffer");
    char pname[256] = {0};
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    on_cudacl = strstr(pname, "cudacl") != NULL;
    prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    err = clBuildProgram(prog, 1, &dev, NULL, NULL, NULL);
    CHECK(err == CL_SUCCESS, "build: %d", err);
    if (err != CL_SUCCESS) return report("command_buffer");
    replays();
    if (on_cudacl) {
        /* cudacl's own choices (capabilities, versions, which replays are graphs). */
        device_queries();
        plain_replays();
        images();
        svm();
        errors();
        mutable_dispatch();
        two_devices();
    }
    timing(1000, 5);
    timing(64, 100); /* the 64-kernel chain */
    clReleaseProgram(prog);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return report("command_buffer");
}
