/*
 * fakecuda: a FAKE CUDA driver (a stand-in for libcuda.so.1) for cudacl's CPU-only tests.
 *
 * THIS IS NOT A GPU. It lets CI machines without an NVIDIA GPU exercise cudacl's runtime logic
 * (buffers, queues, events, map/unmap, sub-buffers, error paths) through the real OpenCL API.
 * Tests that use it are fake-driver tests of runtime logic, never evidence that anything works
 * on a GPU; the same C programs are run on a real GPU separately.
 *
 * Model: "device memory" is host memory from malloc (a device pointer is a host address), every
 * stream executes its work immediately and synchronously, an event is complete once recorded
 * (its timestamp is the host clock at record time), kernels are not executed (cuLaunchKernel
 * records its configuration for `fakecuda_last_launch`), host functions run at once.
 *
 * Build: cc -shared -fPIC fakecuda.c -o libcuda.so.1 -lpthread (the test harness does it) and put
 * its folder first on LD_LIBRARY_PATH (also as libcuda.so, the first name cudarc tries).
 * With -DFAKECUDA_CUDA_10_2 it is a CUDA 10.2 driver (JetPack 4.6): cuDriverGetVersion says 10020
 * and only entry points of CUDA 10.2 are exported (cuda-10.2.symbols; no
 * cuDevicePrimaryCtxRelease_v2).
 *
 * Environment:
 *   FAKECUDA_DEVICES=n          number of devices (default 1)
 *   FAKECUDA_INTEGRATED=1       devices report INTEGRATED=1 (zero-copy paths)
 *   FAKECUDA_NO_HOST_REGISTER=1 HOST_REGISTER_SUPPORTED=0 and cuMemHostRegister fails (Jetson
 *                               Nano/TX2-like: the copy-based USE_HOST_PTR fallback)
 *   FAKECUDA_MEM_LIMIT=bytes    cuMemAlloc fails with OUT_OF_MEMORY beyond this many live bytes
 *   FAKECUDA_TRACE=1            prints every call to stderr
 *   FAKECUDA_FAULT_POISONS=1    a kernel fault poisons the process, as NVIDIA's driver 580 does:
 *                               later cuCtxCreate and cuDevicePrimaryCtxRetain answer
 *                               CUDA_ERROR_ILLEGAL_ADDRESS (conformance/cts/probes/cuda-fault-probe.c)
 *   FAKECUDA_EXPECT_PTX="a;b"   cuModuleLoadDataEx refuses PTX lacking any of the pieces
 *   FAKECUDA_CAPTURE_FAILS=1    every stream capture ends invalidated (cuStreamEndCapture)
 *   FAKECUDA_ASYNC=1            streams run their work on threads, later than the calls that
 *                               issued it (FAKECUDA_ASYNC_DELAY_US per item, default 200): the
 *                               host runs ahead of the "device" as on a GPU
 *
 * Test hooks (find them with dlopen("libcuda.so.1", RTLD_NOLOAD|RTLD_NOW) + dlsym):
 *   int fakecuda_last_launch(struct fakecuda_launch *out)  the last cuLaunchKernel
 *   void fakecuda_stats(struct fakecuda_stats *out)        counters of copies, fills, pinning
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../c/fakecuda_hooks.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void *);

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

#define MAX_DEVICES 8
/* CUDA_ERROR_ILLEGAL_STATE (401): capture begun twice, or ended when not begun. */
#define CUDA_ERROR_ILLEGAL_STATE_FAKE 401

/* ---------------------------------------------------------------- environment, tracing */

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return (v && *v) ? atoi(v) : dflt;
}

static int tracing(void) {
    static int t = -1;
    if (t < 0) t = env_int("FAKECUDA_TRACE", 0);
    return t;
}

#define TRACE(...)                                   \
    do {                                             \
        if (tracing()) {                             \
            fprintf(stderr, "fakecuda: " __VA_ARGS__); \
            fprintf(stderr, "\n");                   \
        }                                            \
    } while (0)

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int initialized;
static int device_count(void) {
    int n = env_int("FAKECUDA_DEVICES", 1);
    if (n < 0) n = 0;
    if (n > MAX_DEVICES) n = MAX_DEVICES;
    return n;
}

static int valid_device(CUdevice d) { return d >= 0 && d < device_count(); }

/* ---------------------------------------------------------------- statistics for tests */


static struct fakecuda_stats stats;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void fakecuda_stats(struct fakecuda_stats *out) {
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
}

#define COUNT(field, amount)          \
    do {                              \
        pthread_mutex_lock(&lock);    \
        stats.field += (amount);      \
        pthread_mutex_unlock(&lock);  \
    } while (0)

/* ---------------------------------------------------------------- init, devices */

CUresult cuInit(unsigned flags) {
    (void)flags;
    initialized = 1;
    TRACE("cuInit");
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v) {
    if (!v) return CUDA_ERROR_INVALID_VALUE;
#ifdef FAKECUDA_CUDA_10_2
    *v = 10020;
#else
    *v = 13000;
#endif
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n) {
    if (!n) return CUDA_ERROR_INVALID_VALUE;
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    *n = device_count();
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "Fake CUDA Device");
    return CUDA_SUCCESS;
}

static const unsigned long long TOTAL_MEM = 85520809984ull; /* like an H100 80GB */

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = (size_t)TOTAL_MEM;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(id, (size_t)len, "0000:%02X:00.0", 0x18 + d);
    return CUDA_SUCCESS;
}

/* A plausible sm_90 (H100-like) attribute table; 0 for anything not listed. */
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    int no_reg = env_int("FAKECUDA_NO_HOST_REGISTER", 0);
    int r = 0;
    switch (attr) {
    case 1: r = 1024; break;            /* MAX_THREADS_PER_BLOCK */
    case 2: r = 1024; break;            /* MAX_BLOCK_DIM_X */
    case 3: r = 1024; break;            /* MAX_BLOCK_DIM_Y */
    case 4: r = 64; break;              /* MAX_BLOCK_DIM_Z */
    case 5: r = 2147483647; break;      /* MAX_GRID_DIM_X */
    case 6: r = 65535; break;           /* MAX_GRID_DIM_Y */
    case 7: r = 65535; break;           /* MAX_GRID_DIM_Z */
    case 8: r = 49152; break;           /* MAX_SHARED_MEMORY_PER_BLOCK */
    case 9: r = 65536; break;           /* TOTAL_CONSTANT_MEMORY */
    case 10: r = 32; break;             /* WARP_SIZE */
    case 11: r = 2147483647; break;     /* MAX_PITCH */
    case 12: r = 65536; break;          /* MAX_REGISTERS_PER_BLOCK */
    case 13: r = 1980000; break;        /* CLOCK_RATE (kHz) */
    case 14: r = 512; break;            /* TEXTURE_ALIGNMENT */
    case 15: r = 1; break;              /* GPU_OVERLAP */
    case 16: r = 132; break;            /* MULTIPROCESSOR_COUNT */
    case 17: r = 0; break;              /* KERNEL_EXEC_TIMEOUT */
    case 18: r = env_int("FAKECUDA_INTEGRATED", 0) ? 1 : 0; break; /* INTEGRATED */
    case 19: r = 1; break;              /* CAN_MAP_HOST_MEMORY */
    case 20: r = 0; break;              /* COMPUTE_MODE */
    case 30: r = 512; break;            /* SURFACE_ALIGNMENT */
    case 31: r = 1; break;              /* CONCURRENT_KERNELS */
    case 32: r = 1; break;              /* ECC_ENABLED */
    case 33: r = 0x18 + d; break;       /* PCI_BUS_ID */
    case 34: r = 0; break;              /* PCI_DEVICE_ID */
    case 36: r = 2619000; break;        /* MEMORY_CLOCK_RATE */
    case 37: r = 5120; break;           /* GLOBAL_MEMORY_BUS_WIDTH */
    case 38: r = 52428800; break;       /* L2_CACHE_SIZE */
    case 39: r = 2048; break;           /* MAX_THREADS_PER_MULTIPROCESSOR */
    case 40: r = 3; break;              /* ASYNC_ENGINE_COUNT */
    case 41: r = 1; break;              /* UNIFIED_ADDRESSING */
    case 50: r = 0; break;              /* PCI_DOMAIN_ID */
    case 55: r = 32768; break;          /* MAXIMUM_SURFACE1D_WIDTH */
    case 56: r = 131072; break;         /* MAXIMUM_SURFACE2D_WIDTH */
    case 57: r = 65536; break;          /* MAXIMUM_SURFACE2D_HEIGHT */
    case 58: r = 16384; break;          /* MAXIMUM_SURFACE3D_WIDTH */
    case 59: r = 16384; break;          /* MAXIMUM_SURFACE3D_HEIGHT */
    case 60: r = 16384; break;          /* MAXIMUM_SURFACE3D_DEPTH */
    case 61: r = 32768; break;          /* MAXIMUM_SURFACE1D_LAYERED_WIDTH */
    case 62: r = 2048; break;           /* MAXIMUM_SURFACE1D_LAYERED_LAYERS */
    case 63: r = 32768; break;          /* MAXIMUM_SURFACE2D_LAYERED_WIDTH */
    case 64: r = 32768; break;          /* MAXIMUM_SURFACE2D_LAYERED_HEIGHT */
    case 65: r = 2048; break;           /* MAXIMUM_SURFACE2D_LAYERED_LAYERS */
    case 75: r = 9; break;              /* COMPUTE_CAPABILITY_MAJOR */
    case 76: r = 0; break;              /* COMPUTE_CAPABILITY_MINOR */
    case 78: r = 1; break;              /* STREAM_PRIORITIES_SUPPORTED */
    case 79: r = 1; break;              /* GLOBAL_L1_CACHE_SUPPORTED */
    case 80: r = 1; break;              /* LOCAL_L1_CACHE_SUPPORTED */
    case 81: r = 233472; break;         /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    case 82: r = 65536; break;          /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    case 83: r = 1; break;              /* MANAGED_MEMORY */
    case 89: r = env_int("FAKECUDA_INTEGRATED", 0) ? 0 : 1; break; /* CONCURRENT_MANAGED_ACCESS (not on Tegra) */
    case 86: r = 0; break;              /* HOST_NATIVE_ATOMIC_SUPPORTED */
    case 87: r = 2; break;              /* SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO */
    case 95: r = 1; break;              /* COOPERATIVE_LAUNCH */
    case 97: r = 232448; break;         /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    case 99: r = no_reg ? 0 : 1; break; /* HOST_REGISTER_SUPPORTED */
    case 106: r = 32; break;            /* MAX_BLOCKS_PER_MULTIPROCESSOR */
    case 111: r = 1024; break;          /* RESERVED_SHARED_MEMORY_PER_BLOCK */
    default: r = 0; break;
    }
    *v = r;
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- contexts */

/* A context is "faulted" after a launch of a kernel whose name starts with fakecuda_fault:
 * like a real illegal address, the error is sticky (every later launch, copy and
 * synchronisation in the context returns it) until the primary context's last reference is
 * released, which resets it. */
struct fake_ctx {
    int device;
    int refs;
    int faulted;
};
static struct fake_ctx contexts[MAX_DEVICES];
static __thread struct fake_ctx *current;

/* Set by a kernel fault; with FAKECUDA_FAULT_POISONS=1 no context can be had afterwards. */
static int process_faulted;
static int poisoned(void) { return process_faulted && env_int("FAKECUDA_FAULT_POISONS", 0); }

CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    if (poisoned()) return CUDA_ERROR_ILLEGAL_ADDRESS;
    pthread_mutex_lock(&lock);
    contexts[d].device = d;
    contexts[d].refs++;
    pthread_mutex_unlock(&lock);
    *ctx = &contexts[d];
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    if (contexts[d].refs > 0) contexts[d].refs--;
    if (contexts[d].refs == 0) contexts[d].faulted = 0;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset(CUdevice d) { return valid_device(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

#ifndef FAKECUDA_CUDA_10_2
/* CUDA 11.0+ only: the 10.2 build (JetPack 4.6's driver) does not export them. */
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return cuDevicePrimaryCtxRelease(d); }
CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) { return cuDevicePrimaryCtxReset(d); }
#endif

/* A context of its own (not the device's primary one): cudacl makes one when the primary
 * context faulted and is still in use. */
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, CUdevice d) {
    (void)flags;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d)) return CUDA_ERROR_INVALID_DEVICE;
    if (poisoned()) return CUDA_ERROR_ILLEGAL_ADDRESS;
    struct fake_ctx *c = calloc(1, sizeof *c);
    if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
    c->device = d;
    c->refs = 1;
    current = c;
    *ctx = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(void *ctx) {
    struct fake_ctx *c = ctx;
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (current == c) current = NULL;
    if (c < contexts || c >= contexts + MAX_DEVICES) free(c);
    return CUDA_SUCCESS;
}

/* Peer access: every pair of fake devices can have it. Enabling it twice is the driver's error,
 * which cudacl must take in its stride (it enables per pair once, but another context may have). */
CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
    if (!can) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d) || !valid_device(peer)) return CUDA_ERROR_INVALID_DEVICE;
    *can = d != peer;
    return CUDA_SUCCESS;
}

static unsigned char peer_enabled[MAX_DEVICES][MAX_DEVICES];

CUresult cuCtxEnablePeerAccess(void *peer, unsigned flags) {
    struct fake_ctx *p = peer;
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    if (!current || !p) return CUDA_ERROR_INVALID_CONTEXT;
    if (current->device == p->device) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    int was = peer_enabled[current->device][p->device];
    peer_enabled[current->device][p->device] = 1;
    pthread_mutex_unlock(&lock);
    TRACE("EnablePeerAccess dev %d -> dev %d", current->device, p->device);
    return was ? CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED : CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(void *ctx) {
    current = (struct fake_ctx *)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(void **ctx) {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = current;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *d) {
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    *d = current->device;
    return CUDA_SUCCESS;
}

static CUresult need_ctx(void) { return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

/* The sticky error of the current context, if it faulted. */
static CUresult sticky(void) { return current && current->faulted ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS; }

/* ---------------------------------------------------------------- streams and events
 *
 * Synchronous mode (default): work runs inside the call. Asynchronous mode (FAKECUDA_ASYNC=1):
 * each stream has a worker thread that runs its work in order, each item after
 * FAKECUDA_ASYNC_DELAY_US (default 200) microseconds, so the host runs ahead of the "device"
 * the way it does on a GPU. Copies follow CUDA's rules for pageable memory: a host-to-device
 * copy from pageable memory takes its source at the call, a device-to-host copy into pageable
 * memory returns once done; copies from/to pinned memory (cuMemHostAlloc, cuMemHostRegister)
 * are fully asynchronous. cuMemFree, cuMemFreeHost and cuMemHostUnregister wait for all
 * streams, as the driver's implicit synchronisation does. (Events are never freed in this mode:
 * queued work may still refer to them.) */

static int async_mode(void) {
    static int a = -1;
    if (a < 0) a = env_int("FAKECUDA_ASYNC", 0);
    return a;
}

static int async_delay_us(void) {
    static int d = -1;
    if (d < 0) d = env_int("FAKECUDA_ASYNC_DELAY_US", 200);
    return d;
}

typedef void (*op_fn)(void *);
struct op {
    op_fn fn;
    void *arg;
    struct op *next;
};

struct fake_stream {
    int device;
    pthread_t thread;
    int has_thread, stop;
    pthread_mutex_t m;
    pthread_cond_t cv;
    struct op *head, *tail;
    unsigned long long enq, done;
    struct fake_stream *next_stream;
    struct fake_graph *capturing; /* between cuStreamBeginCapture_v2 and cuStreamEndCapture */
};
struct fake_graph;
static int capture_op(void *stream, int kind, const void *a, const void *b, size_t n, CUresult *r);
static int capture_refuse(void *stream, CUresult *r);
static struct fake_stream *all_streams;

struct fake_event {
    unsigned long long t;
    int recorded;
    int timing;
    int device; /* of the context current at creation */
    struct fake_ctx *ctx; /* that context */
    unsigned long long epoch, done_epoch;
};

/* Like the driver, work goes only to streams of the current context (a stream of another
 * context is a bug in the caller: CUDA_ERROR_INVALID_CONTEXT here). */
static CUresult check_stream(void *stream) {
    struct fake_stream *s = stream;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    if (current->faulted) return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (s && s->device != current->device) {
        TRACE("stream of device %d used while device %d's context is current", s->device, current->device);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return CUDA_SUCCESS;
}
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cv = PTHREAD_COND_INITIALIZER;

static void *stream_worker(void *p) {
    struct fake_stream *s = p;
    pthread_mutex_lock(&s->m);
    for (;;) {
        while (!s->head && !s->stop) pthread_cond_wait(&s->cv, &s->m);
        if (!s->head) break;
        struct op *o = s->head;
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        pthread_mutex_unlock(&s->m);
        if (async_delay_us() > 0) usleep((useconds_t)async_delay_us());
        o->fn(o->arg);
        free(o);
        pthread_mutex_lock(&s->m);
        s->done++;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}

/* Runs fn(arg) on the stream: now in synchronous mode (or for the NULL stream, after waiting
 * for every stream like the legacy default stream), later in asynchronous mode. */
static void stream_wait_all(void);
static void submit(void *stream, op_fn fn, void *arg) {
    struct fake_stream *s = stream;
    if (!async_mode() || !s || !s->has_thread) {
        if (async_mode() && !s) stream_wait_all();
        fn(arg);
        return;
    }
    struct op *o = malloc(sizeof *o);
    if (!o) {
        fn(arg);
        return;
    }
    o->fn = fn;
    o->arg = arg;
    o->next = NULL;
    pthread_mutex_lock(&s->m);
    if (s->tail) s->tail->next = o;
    else s->head = o;
    s->tail = o;
    s->enq++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->m);
}

static void stream_wait_idle(struct fake_stream *s) {
    if (!s || !s->has_thread) return;
    pthread_mutex_lock(&s->m);
    while (s->done < s->enq) pthread_cond_wait(&s->cv, &s->m);
    pthread_mutex_unlock(&s->m);
}

static void stream_wait_all(void) {
    if (!async_mode()) return;
    pthread_mutex_lock(&lock);
    struct fake_stream *list[256];
    int n = 0;
    for (struct fake_stream *s = all_streams; s && n < 256; s = s->next_stream) list[n++] = s;
    /* streams are only destroyed after they are idle; a snapshot is enough for a test driver */
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) stream_wait_idle(list[i]);
}

CUresult cuCtxSynchronize(void) {
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    stream_wait_all();
    return sticky();
}

CUresult cuStreamCreate(void **s, unsigned flags) {
    (void)flags;
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    if (need_ctx()) return CUDA_ERROR_INVALID_CONTEXT;
    struct fake_stream *st = calloc(1, sizeof *st);
    if (!st) return CUDA_ERROR_OUT_OF_MEMORY;
    st->device = current->device;
    pthread_mutex_init(&st->m, NULL);
    pthread_cond_init(&st->cv, NULL);
    if (async_mode() && pthread_create(&st->thread, NULL, stream_worker, st) == 0) st->has_thread = 1;
    pthread_mutex_lock(&lock);
    st->next_stream = all_streams;
    all_streams = st;
    pthread_mutex_unlock(&lock);
    *s = st;
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(void *s) {
    struct fake_stream *st = s;
    if (!st) return CUDA_ERROR_INVALID_HANDLE;
    stream_wait_idle(st);
    if (st->has_thread) {
        pthread_mutex_lock(&st->m);
        st->stop = 1;
        pthread_cond_broadcast(&st->cv);
        pthread_mutex_unlock(&st->m);
        pthread_join(st->thread, NULL);
    }
    pthread_mutex_lock(&lock);
    for (struct fake_stream **p = &all_streams; *p; p = &(*p)->next_stream) {
        if (*p == st) {
            *p = st->next_stream;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    free(st);
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(void *s) {
    if (s) stream_wait_idle(s);
    else stream_wait_all();
    return sticky();
}

CUresult cuStreamQuery(void *s) {
    struct fake_stream *st = s;
    if (!st || !st->has_thread) return CUDA_SUCCESS;
    pthread_mutex_lock(&st->m);
    int idle = st->done == st->enq;
    pthread_mutex_unlock(&st->m);
    return idle ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

struct event_op {
    struct fake_event *ev;
    unsigned long long epoch;
};

static void event_fire(void *p) {
    struct event_op *o = p;
    pthread_mutex_lock(&ev_lock);
    o->ev->t = now_ns();
    if (o->ev->done_epoch < o->epoch) o->ev->done_epoch = o->epoch;
    pthread_cond_broadcast(&ev_cv);
    pthread_mutex_unlock(&ev_lock);
    free(o);
}

static void event_wait_op(void *p) {
    struct event_op *o = p;
    pthread_mutex_lock(&ev_lock);
    while (o->ev->done_epoch < o->epoch) pthread_cond_wait(&ev_cv, &ev_lock);
    pthread_mutex_unlock(&ev_lock);
    free(o);
}

static struct event_op *event_op(struct fake_event *ev, unsigned long long epoch) {
    struct event_op *o = malloc(sizeof *o);
    if (o) {
        o->ev = ev;
        o->epoch = epoch;
    }
    return o;
}

CUresult cuStreamWaitEvent(void *s, void *e, unsigned flags) {
    (void)flags;
    { CUresult r_; if (capture_refuse(s, &r_)) return r_; }
    struct fake_event *ev = e;
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&ev_lock);
    unsigned long long epoch = ev->epoch;
    pthread_mutex_unlock(&ev_lock);
    struct event_op *o = event_op(ev, epoch);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    submit(s, event_wait_op, o);
    return CUDA_SUCCESS;
}

CUresult cuEventCreate(void **e, unsigned flags) {
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    struct fake_event *ev = calloc(1, sizeof *ev);
    if (!ev) return CUDA_ERROR_OUT_OF_MEMORY;
    ev->timing = !(flags & 2); /* CU_EVENT_DISABLE_TIMING */
    ev->device = current ? current->device : -1;
    ev->ctx = current;
    *e = ev;
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(void *e) {
    if (!async_mode()) free(e);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(void *e, void *s) {
    { CUresult r_; if (capture_refuse(s, &r_)) return r_; }
    struct fake_event *ev = e;
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    if (s && ev->device != ((struct fake_stream *)s)->device) {
        TRACE("event of device %d recorded on a stream of device %d", ev->device, ((struct fake_stream *)s)->device);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&ev_lock);
    ev->recorded = 1;
    unsigned long long epoch = ++ev->epoch;
    pthread_mutex_unlock(&ev_lock);
    struct event_op *o = event_op(ev, epoch);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    submit(s, event_fire, o);
    return CUDA_SUCCESS;
}

CUresult cuEventQuery(void *e) {
    struct fake_event *ev = e;
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&ev_lock);
    int done = ev->done_epoch >= ev->epoch;
    pthread_mutex_unlock(&ev_lock);
    if (ev->ctx && ev->ctx->faulted) return CUDA_ERROR_ILLEGAL_ADDRESS;
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventSynchronize(void *e) {
    struct fake_event *ev = e;
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&ev_lock);
    unsigned long long epoch = ev->epoch;
    while (ev->done_epoch < epoch) pthread_cond_wait(&ev_cv, &ev_lock);
    pthread_mutex_unlock(&ev_lock);
    if (ev->ctx && ev->ctx->faulted) return CUDA_ERROR_ILLEGAL_ADDRESS;
    return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
    if (!ms || !start || !end) return CUDA_ERROR_INVALID_VALUE;
    struct fake_event *a = start, *b = end;
    if (!a->recorded || !b->recorded || !a->timing || !b->timing) return CUDA_ERROR_INVALID_HANDLE;
    if (cuEventQuery(a) || cuEventQuery(b)) return CUDA_ERROR_NOT_READY;
    *ms = (float)((double)((long long)(b->t - a->t)) / 1e6);
    return CUDA_SUCCESS;
}

struct host_fn_op {
    CUhostFn fn;
    void *data;
};

static void host_fn_run(void *p) {
    struct host_fn_op *o = p;
    o->fn(o->data);
    free(o);
}

CUresult cuLaunchHostFunc(void *s, CUhostFn fn, void *data) {
    { CUresult r_; if (capture_refuse(s, &r_)) return r_; }
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    struct host_fn_op *o = malloc(sizeof *o);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    o->fn = fn;
    o->data = data;
    submit(s, host_fn_run, o);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- memory */

/* Live device allocations, to account sizes (FAKECUDA_MEM_LIMIT, cuMemGetInfo). */
struct alloc {
    void *p;
    size_t n;
    struct alloc *next;
};
static struct alloc *allocs;

CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n) {
    if (!d || n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (need_ctx()) return CUDA_ERROR_INVALID_CONTEXT;
    const char *lim = getenv("FAKECUDA_MEM_LIMIT");
    pthread_mutex_lock(&lock);
    if (lim && *lim && stats.live_alloc_bytes + n > strtoull(lim, NULL, 10)) {
        pthread_mutex_unlock(&lock);
        TRACE("cuMemAlloc(%zu) -> OUT_OF_MEMORY (limit)", n);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&lock);
    /* Device memory is uninitialised on a GPU: make it recognisable garbage. */
    void *p = malloc(n);
    struct alloc *a = malloc(sizeof *a);
    if (!p || !a) {
        free(p);
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memset(p, 0xA5, n < 4096 ? n : 4096);
    pthread_mutex_lock(&lock);
    a->p = p;
    a->n = n;
    a->next = allocs;
    allocs = a;
    stats.mem_alloc_calls++;
    stats.live_alloc_bytes += n;
    pthread_mutex_unlock(&lock);
    *d = (CUdeviceptr)(uintptr_t)p;
    TRACE("cuMemAlloc(%zu) -> %p", n, p);
    return CUDA_SUCCESS;
}

/* Managed memory: host memory here, as device memory is (freed with cuMemFree). */
CUresult cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned flags) {
    if (flags != 1 && flags != 2) return CUDA_ERROR_INVALID_VALUE; /* ATTACH_GLOBAL / HOST */
    return cuMemAlloc_v2(d, n);
}

/* Prefetching managed memory: nothing moves here (one memory), the stream is checked. */
CUresult cuMemPrefetchAsync(CUdeviceptr d, size_t n, int device, void *s) {
    (void)n;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (device != -1 && !valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    return check_stream(s);
}

CUresult cuMemFree_v2(CUdeviceptr d) {
    void *p = (void *)(uintptr_t)d;
    stream_wait_all();
    pthread_mutex_lock(&lock);
    for (struct alloc **a = &allocs; *a; a = &(*a)->next) {
        if ((*a)->p == p) {
            struct alloc *dead = *a;
            *a = dead->next;
            stats.live_alloc_bytes -= dead->n;
            free(dead);
            pthread_mutex_unlock(&lock);
            TRACE("cuMemFree(%p)", p);
            free(p);
            return CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    *total = (size_t)TOTAL_MEM;
    *free_bytes = (size_t)(TOTAL_MEM - stats.live_alloc_bytes);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* Page-locked ranges: cuMemHostAlloc'd and registered memory (copies from/to them are
 * asynchronous in FAKECUDA_ASYNC mode). */
#define MAX_REG 4096
static struct {
    uintptr_t start, end;
    int allocated; /* from cuMemHostAlloc (else registered) */
} regs[MAX_REG];
static int nregs;

static int is_pinned(const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nregs && !found; i++) found = a >= regs[i].start && a + n <= regs[i].end;
    pthread_mutex_unlock(&lock);
    return found;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
    (void)flags;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    *p = malloc(n ? n : 1);
    if (!*p) return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    if (nregs < MAX_REG) {
        regs[nregs].start = (uintptr_t)*p;
        regs[nregs].end = (uintptr_t)*p + (n ? n : 1);
        regs[nregs].allocated = 1;
        nregs++;
    }
    pthread_mutex_unlock(&lock);
    COUNT(host_alloc_calls, 1);
    TRACE("cuMemHostAlloc(%zu) -> %p", n, *p);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **p, size_t n) { return cuMemHostAlloc(p, n, 0); }

CUresult cuMemFreeHost(void *p) {
    stream_wait_all();
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nregs; i++) {
        if (regs[i].start == (uintptr_t)p && regs[i].allocated) {
            regs[i] = regs[--nregs];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    free(p);
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) {
    (void)flags;
    if (!p || n == 0) return CUDA_ERROR_INVALID_VALUE;
    if (env_int("FAKECUDA_NO_HOST_REGISTER", 0)) return CUDA_ERROR_NOT_SUPPORTED;
    uintptr_t a = (uintptr_t)p, b = a + n;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nregs; i++) {
        if (a < regs[i].end && regs[i].start < b) {
            pthread_mutex_unlock(&lock);
            return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        }
    }
    if (nregs == MAX_REG) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    regs[nregs].start = a;
    regs[nregs].end = b;
    regs[nregs].allocated = 0;
    nregs++;
    stats.host_register_calls++;
    pthread_mutex_unlock(&lock);
    TRACE("cuMemHostRegister(%p, %zu)", p, n);
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister(void *p, size_t n, unsigned flags) { return cuMemHostRegister_v2(p, n, flags); }

CUresult cuMemHostUnregister(void *p) {
    stream_wait_all();
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nregs; i++) {
        if (regs[i].start == (uintptr_t)p && !regs[i].allocated) {
            regs[i] = regs[--nregs];
            pthread_mutex_unlock(&lock);
            return CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

enum { MT_HOST_ATTR = 1, MT_DEVICE_ATTR = 2 };
/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) only: CU_MEMORYTYPE_HOST for pinned or registered
 * memory, CU_MEMORYTYPE_DEVICE for device allocations, CUDA_ERROR_INVALID_VALUE for memory the
 * driver does not know (pageable), as the driver answers. */
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
    if (!data || attribute != 2) return CUDA_ERROR_INVALID_VALUE;
    if (is_pinned((void *)(uintptr_t)ptr, 1)) {
        *(unsigned *)data = MT_HOST_ATTR;
        return CUDA_SUCCESS;
    }
    int dev = 0;
    pthread_mutex_lock(&lock);
    for (struct alloc *a = allocs; a; a = a->next)
        if ((uintptr_t)ptr >= (uintptr_t)a->p && (uintptr_t)ptr < (uintptr_t)a->p + a->n) dev = 1;
    pthread_mutex_unlock(&lock);
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    *(unsigned *)data = MT_DEVICE_ATTR;
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags) {
    (void)flags;
    if (!d || !p) return CUDA_ERROR_INVALID_VALUE;
    *d = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned *flags, void *p) {
    (void)p;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    return CUDA_SUCCESS;
}

#define DP(x) ((void *)(uintptr_t)(x))

struct copy_op {
    void *dst;
    const void *src;
    size_t n;
    void *owned; /* freed after the copy */
};

static void copy_run(void *p) {
    struct copy_op *o = p;
    memmove(o->dst, o->src, o->n);
    free(o->owned);
    free(o);
}

/* A copy on a stream; `src_staged`: take the source now (pageable host source);
 * `wait`: return once done (pageable host destination). */
static CUresult copy_on(void *s, void *dst, const void *src, size_t n, int src_staged, int wait) {
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    { CUresult r_; if (capture_op(s, 0, dst, src, n, &r_)) return r_; }
    if (n && (!dst || !src)) return CUDA_ERROR_INVALID_VALUE;
    if (!n) return CUDA_SUCCESS;
    struct copy_op *o = malloc(sizeof *o);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    o->dst = dst;
    o->src = src;
    o->n = n;
    o->owned = NULL;
    if (src_staged && async_mode() && s) {
        o->owned = malloc(n);
        if (!o->owned) {
            free(o);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memcpy(o->owned, src, n);
        o->src = o->owned;
    }
    submit(s, copy_run, o);
    if (wait) stream_wait_idle(s);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
    COUNT(htod_calls, 1);
    COUNT(htod_bytes, n);
    TRACE("HtoD %zu", n);
    return copy_on(s, DP(dst), src, n, !is_pinned(src, n), 0);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
    COUNT(dtoh_calls, 1);
    COUNT(dtoh_bytes, n);
    TRACE("DtoH %zu", n);
    return copy_on(s, dst, DP(src), n, 0, !is_pinned(dst, n));
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
    COUNT(dtod_calls, 1);
    COUNT(dtod_bytes, n);
    TRACE("DtoD %zu", n);
    return copy_on(s, DP(dst), DP(src), n, 0, 0);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) { return cuMemcpyDtoDAsync_v2(dst, src, n, s); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return cuMemcpyHtoDAsync_v2(dst, src, n, NULL); }
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoHAsync_v2(dst, src, n, NULL); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoDAsync_v2(dst, src, n, NULL); }
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoDAsync_v2(dst, src, n, NULL); }

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx, size_t n, void *s) {
    if (!dst_ctx || !src_ctx) return CUDA_ERROR_INVALID_CONTEXT;
    COUNT(peer_calls, 1);
    COUNT(peer_bytes, n);
    TRACE("Peer %zu (dev %d -> dev %d)", n, ((struct fake_ctx *)src_ctx)->device, ((struct fake_ctx *)dst_ctx)->device);
    return copy_on(s, DP(dst), DP(src), n, 0, 0);
}

CUresult cuMemcpyPeer(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx, size_t n) {
    return cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, n, NULL);
}

/* The CUDA_MEMCPY3D parameter block (CUDA_MEMCPY3D_v2). */
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

enum { MT_HOST = 1, MT_DEVICE = 2, MT_ARRAY = 3, MT_UNIFIED = 4 };

/* ---------------------------------------------------------------- arrays and surface objects */

/* A CUDA array is host memory with a pitch: rows of Width elements, max(Height,1) rows per
 * slice, max(Depth,1) slices (layers for a layered array). A surface object is the array's
 * address (kernels are not run, so nothing reads through it). */
#define ARRAY_MAGIC 0xA77A7A11u
struct fake_array {
    unsigned magic;
    size_t pitch, rows, slices;
    char *data;
};

typedef struct {
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels, Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

static size_t format_bytes(int f) {
    switch (f) {
    case 0x01: case 0x08: return 1;             /* UNSIGNED_INT8, SIGNED_INT8 */
    case 0x02: case 0x09: case 0x10: return 2;  /* UNSIGNED_INT16, SIGNED_INT16, HALF */
    case 0x03: case 0x0a: case 0x20: return 4;  /* UNSIGNED_INT32, SIGNED_INT32, FLOAT */
    default: return 0;
    }
}

CUresult cuArray3DCreate_v2(void **arr, const CUDA_ARRAY3D_DESCRIPTOR *d) {
    if (!arr || !d) return CUDA_ERROR_INVALID_VALUE;
    if (need_ctx()) return CUDA_ERROR_INVALID_CONTEXT;
    size_t e = format_bytes(d->Format);
    unsigned ch = d->NumChannels;
    if (!e || !(ch == 1 || ch == 2 || ch == 4) || d->Width == 0) return CUDA_ERROR_INVALID_VALUE;
    /* Layered 1-D arrays have Height 0; other shapes with Depth need a Height. */
    if (d->Depth && !d->Height && !(d->Flags & 1)) return CUDA_ERROR_INVALID_VALUE;
    if (!(d->Flags & 2)) return CUDA_ERROR_INVALID_VALUE; /* cudacl always asks for SURFACE_LDST */
    struct fake_array *a = calloc(1, sizeof *a);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    a->magic = ARRAY_MAGIC;
    a->pitch = d->Width * e * ch;
    a->rows = d->Height ? d->Height : 1;
    a->slices = d->Depth ? d->Depth : 1;
    size_t n = a->pitch * a->rows * a->slices;
    a->data = malloc(n);
    if (!a->data) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memset(a->data, 0xA5, n); /* uninitialised on a GPU: recognisable garbage */
    COUNT(arrays_created, 1);
    TRACE("cuArray3DCreate %zux%zux%zu x %zu bytes -> %p", d->Width, d->Height, d->Depth, e * ch, (void *)a);
    *arr = a;
    return CUDA_SUCCESS;
}

static struct fake_array *array_of(const void *p) {
    const struct fake_array *a = p;
    return a && a->magic == ARRAY_MAGIC ? (struct fake_array *)a : NULL;
}

CUresult cuArrayDestroy(void *arr) {
    struct fake_array *a = array_of(arr);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    stream_wait_all();
    a->magic = 0;
    free(a->data);
    free(a);
    COUNT(arrays_destroyed, 1);
    return CUDA_SUCCESS;
}

typedef struct {
    int resType; /* CU_RESOURCE_TYPE_ARRAY = 0 */
    union {
        struct { void *hArray; } array;
        char reserved[128];
    } res;
    unsigned flags;
} CUDA_RESOURCE_DESC;

CUresult cuSurfObjectCreate(unsigned long long *obj, const CUDA_RESOURCE_DESC *r) {
    if (!obj || !r || r->resType != 0 || !array_of(r->res.array.hArray)) return CUDA_ERROR_INVALID_VALUE;
    *obj = (unsigned long long)(uintptr_t)r->res.array.hArray;
    COUNT(surfaces_created, 1);
    return CUDA_SUCCESS;
}

CUresult cuSurfObjectDestroy(unsigned long long obj) {
    if (!array_of((void *)(uintptr_t)obj)) return CUDA_ERROR_INVALID_VALUE;
    COUNT(surfaces_destroyed, 1);
    return CUDA_SUCCESS;
}

/* A texture object: the array's address + 1 (surface objects are the address itself), so a
 * surface handle given to cuTexObjectDestroy is refused. Only the array and the descriptor's
 * presence are checked: the fake driver runs no kernels. */
CUresult cuTexObjectCreate(unsigned long long *obj, const CUDA_RESOURCE_DESC *r, const void *texDesc,
                           const void *viewDesc) {
    (void)viewDesc;
    if (!obj || !r || !texDesc || r->resType != 0 || !array_of(r->res.array.hArray))
        return CUDA_ERROR_INVALID_VALUE;
    *obj = (unsigned long long)(uintptr_t)r->res.array.hArray + 1;
    COUNT(textures_created, 1);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(unsigned long long obj) {
    if (!(obj & 1) || !array_of((void *)(uintptr_t)(obj - 1))) return CUDA_ERROR_INVALID_VALUE;
    COUNT(textures_destroyed, 1);
    return CUDA_SUCCESS;
}

static char *base_of(int type, const void *host, CUdeviceptr dev) {
    switch (type) {
    case MT_HOST: return (char *)host;
    case MT_DEVICE:
    case MT_UNIFIED: return (char *)DP(dev);
    default: return NULL;
    }
}

static void copy3d_run(void *arg) {
    CUDA_MEMCPY3D *p = arg;
    char *src = base_of(p->srcMemoryType, p->srcHost, p->srcDevice);
    char *dst = base_of(p->dstMemoryType, p->dstHost, p->dstDevice);
    size_t depth = p->Depth ? p->Depth : 1, height = p->Height ? p->Height : 1;
    for (size_t z = 0; z < depth; z++) {
        for (size_t y = 0; y < height; y++) {
            const char *a = src + (p->srcZ + z) * p->srcHeight * p->srcPitch + (p->srcY + y) * p->srcPitch + p->srcXInBytes;
            char *b = dst + (p->dstZ + z) * p->dstHeight * p->dstPitch + (p->dstY + y) * p->dstPitch + p->dstXInBytes;
            memmove(b, a, p->WidthInBytes);
        }
    }
    free(p);
}

/* The bytes a side of a 3-D copy spans from its base (to decide pinned or not). */
static size_t span3d(size_t x, size_t y, size_t z, size_t pitch, size_t h, const CUDA_MEMCPY3D *p) {
    size_t depth = p->Depth ? p->Depth : 1, height = p->Height ? p->Height : 1;
    return (z + depth - 1) * h * pitch + (y + height - 1) * pitch + x + p->WidthInBytes;
}

/* An array side of a 3-D copy as the device memory it is here; INVALID_VALUE when the box
 * does not fit in the array (as the driver checks). */
static CUresult array_side(int *type, CUdeviceptr *dev, void *arr, size_t *pitch, size_t *height,
                           size_t x, size_t y, size_t z, const CUDA_MEMCPY3D *p) {
    if (*type != MT_ARRAY) return CUDA_SUCCESS;
    struct fake_array *a = array_of(arr);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    size_t depth = p->Depth ? p->Depth : 1, h = p->Height ? p->Height : 1;
    if (x + p->WidthInBytes > a->pitch || y + h > a->rows || z + depth > a->slices) {
        TRACE("Copy3D box (%zu+%zu, %zu+%zu, %zu+%zu) outside array %zux%zux%zu", x, p->WidthInBytes, y, h, z, depth, a->pitch, a->rows, a->slices);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *type = MT_DEVICE;
    *dev = (CUdeviceptr)(uintptr_t)a->data;
    *pitch = a->pitch;
    *height = a->rows;
    return CUDA_SUCCESS;
}

static CUresult copy3d_async(const CUDA_MEMCPY3D *given, void *s);

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *given, void *s) {
    if (!given) return CUDA_ERROR_INVALID_VALUE;
    { CUresult r_; if (capture_op(s, 3, given, NULL, sizeof *given, &r_)) return r_; }
    CUDA_MEMCPY3D q = *given;
    CUresult r = array_side(&q.srcMemoryType, &q.srcDevice, q.srcArray, &q.srcPitch, &q.srcHeight, q.srcXInBytes, q.srcY, q.srcZ, &q);
    if (!r) r = array_side(&q.dstMemoryType, &q.dstDevice, q.dstArray, &q.dstPitch, &q.dstHeight, q.dstXInBytes, q.dstY, q.dstZ, &q);
    if (r) return r;
    if (given->srcMemoryType == MT_ARRAY || given->dstMemoryType == MT_ARRAY) COUNT(array_copies, 1);
    return copy3d_async(&q, s);
}

/* CUDA_MEMCPY3D_PEER has CUDA_MEMCPY3D's layout with the contexts in the reserved slots. */
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D *p, void *s) {
    if (!p || !p->reserved0 || !p->reserved1) return CUDA_ERROR_INVALID_CONTEXT;
    COUNT(peer_calls, 1);
    return cuMemcpy3DAsync_v2(p, s);
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D *p) { return cuMemcpy3DPeerAsync(p, NULL); }

static CUresult copy3d_async(const CUDA_MEMCPY3D *p, void *s) {
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    char *src = base_of(p->srcMemoryType, p->srcHost, p->srcDevice);
    char *dst = base_of(p->dstMemoryType, p->dstHost, p->dstDevice);
    if (!src || !dst) return CUDA_ERROR_INVALID_VALUE;
    size_t depth = p->Depth ? p->Depth : 1, height = p->Height ? p->Height : 1;
    if (p->WidthInBytes > p->srcPitch && height * depth > 1) return CUDA_ERROR_INVALID_VALUE;
    if (p->WidthInBytes > p->dstPitch && height * depth > 1) return CUDA_ERROR_INVALID_VALUE;
    if (depth > 1 && (p->srcHeight < height || p->dstHeight < height)) return CUDA_ERROR_INVALID_VALUE;
    COUNT(copy3d_calls, 1);
    TRACE("Copy3D %zux%zux%zu", p->WidthInBytes, height, depth);
    CUDA_MEMCPY3D *copy = malloc(sizeof *copy);
    if (!copy) return CUDA_ERROR_OUT_OF_MEMORY;
    *copy = *p;
    int pageable = (p->srcMemoryType == MT_HOST && !is_pinned(src, span3d(p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch, p->srcHeight, p))) ||
                   (p->dstMemoryType == MT_HOST && !is_pinned(dst, span3d(p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight, p)));
    /* Pageable host memory: synchronous, like the driver. */
    if (pageable) {
        stream_wait_idle(s);
        copy3d_run(copy);
    } else {
        submit(s, copy3d_run, copy);
    }
    return CUDA_SUCCESS;
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return cuMemcpy3DAsync_v2(p, NULL); }

struct memset_op {
    char *dst;
    size_t pitch, width, height; /* width in elements */
    unsigned value;
    int elem; /* 1, 2 or 4 bytes */
};

static void memset_run(void *arg) {
    struct memset_op *o = arg;
    for (size_t y = 0; y < o->height; y++) {
        char *row = o->dst + y * o->pitch;
        for (size_t x = 0; x < o->width; x++) {
            if (o->elem == 1) row[x] = (char)o->value;
            else if (o->elem == 2) ((unsigned short *)row)[x] = (unsigned short)o->value;
            else ((unsigned *)row)[x] = o->value;
        }
    }
    free(o);
}

static CUresult memset_on(void *s, CUdeviceptr d, size_t pitch, unsigned v, size_t width, size_t height, int elem) {
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    {
        size_t a[5] = {pitch, v, width, height, (size_t)elem};
        CUresult r_;
        if (capture_op(s, 1, DP(d), a, sizeof a, &r_)) return r_;
    }
    if (d % (CUdeviceptr)elem || (height > 1 && (pitch % (size_t)elem || pitch < width * (size_t)elem))) return CUDA_ERROR_INVALID_VALUE;
    struct memset_op *o = malloc(sizeof *o);
    if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
    o->dst = DP(d);
    o->pitch = pitch;
    o->width = width;
    o->height = height;
    o->value = v;
    o->elem = elem;
    COUNT(memset_calls, 1);
    submit(s, memset_run, o);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) { return memset_on(s, d, n, v, n, 1, 1); }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *s) { return memset_on(s, d, n * 2, v, n, 1, 2); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void *s) { return memset_on(s, d, n * 4, v, n, 1, 4); }
CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned v, size_t width, size_t height, void *s) {
    if (pitch % 4 || pitch < width * 4) return CUDA_ERROR_INVALID_VALUE;
    return memset_on(s, d, pitch, v, width, height, 4);
}

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return cuMemsetD8Async(d, v, n, NULL); }
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return cuMemsetD16Async(d, v, n, NULL); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) { return cuMemsetD32Async(d, v, n, NULL); }

/* ---------------------------------------------------------------- modules and kernels */

struct fake_module {
    char *text;
};

struct fake_function {
    struct fake_module *module;
    char name[256];
    int max_dynamic_shared;
};

static void write_log(unsigned n, const int *opts, void **vals, int which_buf, int which_size, const char *msg) {
    char *buf = NULL;
    size_t size = 0;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == which_buf) buf = vals[i];
        if (opts[i] == which_size) size = (size_t)(uintptr_t)vals[i];
    }
    if (buf && size) snprintf(buf, size, "%s", msg);
}

CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *opts, void **vals) {
    if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
    /* JIT options newer than CUDA 12.x's (from CU_JIT_SPLIT_COMPILE = 34 on) are refused, as
     * an older driver refuses options it does not know: cudacl must retry without them. */
    for (unsigned i = 0; i < n; i++)
        if (opts && opts[i] >= 34) return CUDA_ERROR_INVALID_VALUE;
    if (need_ctx()) return CUDA_ERROR_INVALID_CONTEXT;
    const char *text = image;
    if (!strstr(text, ".entry")) {
        write_log(n, opts, vals, 5, 6, "ptxas fatal   : fakecuda: no '.entry' in the PTX image");
        return CUDA_ERROR_INVALID_PTX;
    }
    /* FAKECUDA_EXPECT_PTX="a;b": every piece must occur in the PTX (tests of CUDACL_TARGET). */
    const char *expect = getenv("FAKECUDA_EXPECT_PTX");
    if (expect && *expect) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", expect);
        for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
            if (!strstr(text, tok)) {
                char msg[320];
                snprintf(msg, sizeof msg, "ptxas fatal   : fakecuda: the PTX lacks '%s'", tok);
                write_log(n, opts, vals, 5, 6, msg);
                return CUDA_ERROR_INVALID_PTX;
            }
    }
    struct fake_module *mod = calloc(1, sizeof *mod);
    if (!mod || !(mod->text = strdup(text))) {
        free(mod);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    write_log(n, opts, vals, 3, 4, "fakecuda: module loaded (not compiled: this is a fake driver)");
    write_log(n, opts, vals, 5, 6, "");
    *m = mod;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(void **m, const void *image) { return cuModuleLoadDataEx(m, image, 0, NULL, NULL); }

CUresult cuModuleUnload(void *m) {
    struct fake_module *mod = m;
    if (!mod) return CUDA_ERROR_INVALID_HANDLE;
    free(mod->text);
    free(mod);
    return CUDA_SUCCESS;
}

/* Finds ".entry NAME" followed by '(' or whitespace. */
static int has_entry(const char *text, const char *name) {
    size_t len = strlen(name);
    for (const char *p = strstr(text, ".entry"); p; p = strstr(p + 1, ".entry")) {
        const char *q = p + 6;
        while (*q == ' ' || *q == '\t') q++;
        if (!strncmp(q, name, len) && (q[len] == '(' || q[len] == ' ' || q[len] == '\n' || q[len] == '\t' || q[len] == '\r'))
            return 1;
    }
    return 0;
}

CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    struct fake_module *mod = m;
    if (!f || !mod || !name) return CUDA_ERROR_INVALID_VALUE;
    if (!has_entry(mod->text, name)) return CUDA_ERROR_NOT_FOUND;
    struct fake_function *fn = calloc(1, sizeof *fn);
    if (!fn) return CUDA_ERROR_OUT_OF_MEMORY;
    fn->module = mod;
    snprintf(fn->name, sizeof fn->name, "%s", name);
    fn->max_dynamic_shared = 49152;
    *f = fn;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
    struct fake_function *fn = f;
    if (!v || !fn) return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case 0: *v = 1024; break;                    /* MAX_THREADS_PER_BLOCK */
    case 1: *v = 0; break;                       /* SHARED_SIZE_BYTES */
    case 2: *v = 0; break;                       /* CONST_SIZE_BYTES */
    case 3: *v = 0; break;                       /* LOCAL_SIZE_BYTES */
    case 4: *v = 32; break;                      /* NUM_REGS */
    case 5: *v = 90; break;                      /* PTX_VERSION */
    case 6: *v = 90; break;                      /* BINARY_VERSION */
    case 8: *v = fn->max_dynamic_shared; break;  /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(void *f, int attr, int value) {
    struct fake_function *fn = f;
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (attr == 8) {
        if (value < 0 || value > 232448) return CUDA_ERROR_INVALID_VALUE;
        fn->max_dynamic_shared = value;
    }
    return CUDA_SUCCESS;
}


static struct fakecuda_launch last_launch;

int fakecuda_last_launch(struct fakecuda_launch *out) {
    pthread_mutex_lock(&lock);
    if (out) *out = last_launch;
    int have = last_launch.count > 0;
    pthread_mutex_unlock(&lock);
    return have;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared, void *s, void **params, void **extra) {
    struct fake_function *fn = f;
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    if (!gx || !gy || !gz || !bx || !by || !bz) return CUDA_ERROR_INVALID_VALUE;
    if (gx > 2147483647u || gy > 65535 || gz > 65535) return CUDA_ERROR_INVALID_VALUE; /* the grid limits */
    if ((unsigned long long)bx * by * bz > 1024 || bz > 64) return CUDA_ERROR_INVALID_VALUE;
    if (shared > (unsigned)fn->max_dynamic_shared) return CUDA_ERROR_INVALID_VALUE;
    {
        void *a[12] = {f, (void *)(size_t)gx, (void *)(size_t)gy, (void *)(size_t)gz, (void *)(size_t)bx,
                       (void *)(size_t)by, (void *)(size_t)bz, (void *)(size_t)shared, params, extra};
        CUresult r_;
        if (capture_op(s, 2, a, NULL, 0, &r_)) return r_;
    }
    pthread_mutex_lock(&lock);
    snprintf(last_launch.name, sizeof last_launch.name, "%s", fn->name);
    last_launch.grid[0] = gx, last_launch.grid[1] = gy, last_launch.grid[2] = gz;
    last_launch.block[0] = bx, last_launch.block[1] = by, last_launch.block[2] = bz;
    last_launch.shared = shared;
    last_launch.param_size = 0;
    (void)params;
    if (extra) {
        void *buf = NULL;
        size_t size = 0;
        for (int i = 0; extra[i]; i += 2) {
            if (extra[i] == (void *)1) buf = extra[i + 1];
            else if (extra[i] == (void *)2 && extra[i + 1]) size = *(size_t *)extra[i + 1];
        }
        if (buf) {
            if (size > sizeof last_launch.params) size = sizeof last_launch.params;
            memcpy(last_launch.params, buf, size);
            last_launch.param_size = size;
        }
    }
    last_launch.count++;
    stats.launches++;
    if (!strncmp(fn->name, "fakecuda_fault", 14)) current->faulted = 1, process_faulted = 1; /* reported later */
    pthread_mutex_unlock(&lock);
    TRACE("launch %s grid %ux%ux%u block %ux%ux%u shared %u", fn->name, gx, gy, gz, bx, by, bz, shared);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- graphs (stream capture)
 * cuStreamBeginCapture_v2 puts a stream in capture mode: copies, fills, 3-D copies and launches
 * issued on it are recorded (not run) into a graph; an event record or wait, or a host function,
 * on a capturing stream invalidates the capture (as capture does not allow those in cudacl's
 * use). cuGraphLaunch issues the recorded work again on the stream it is given. */
enum { CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901 };

struct cap_op {
    int kind; /* 0 copy, 1 memset, 2 launch, 3 3-D copy */
    void *dst;
    const void *src;
    size_t n;
    size_t set[5]; /* memset: pitch, value, width, height, element size */
    void *f;
    unsigned dims[7]; /* launch: grid, block, shared */
    unsigned char params[4096];
    size_t param_size;
    CUDA_MEMCPY3D m3;
};

struct fake_graph {
    struct cap_op *ops;
    size_t n, cap;
    int invalid;
};

static struct cap_op *cap_push(struct fake_graph *g) {
    if (g->n == g->cap) {
        size_t c = g->cap ? 2 * g->cap : 8;
        struct cap_op *o = realloc(g->ops, c * sizeof *o);
        if (!o) return NULL;
        g->ops = o, g->cap = c;
    }
    struct cap_op *o = &g->ops[g->n++];
    memset(o, 0, sizeof *o);
    return o;
}

/* Records an operation when `stream` is capturing: returns 1 with its result in *r. */
static int capture_op(void *stream, int kind, const void *a, const void *b, size_t n, CUresult *r) {
    struct fake_stream *st = stream;
    if (!st || !st->capturing) return 0;
    struct fake_graph *g = st->capturing;
    struct cap_op *o = cap_push(g);
    *r = CUDA_SUCCESS;
    if (!o) {
        g->invalid = 1;
        *r = CUDA_ERROR_OUT_OF_MEMORY;
        return 1;
    }
    o->kind = kind;
    if (kind == 0) {
        o->dst = (void *)a, o->src = b, o->n = n;
    } else if (kind == 1) {
        o->dst = (void *)a;
        memcpy(o->set, b, sizeof o->set);
    } else if (kind == 2) {
        void *const *v = a;
        o->f = v[0];
        for (int i = 0; i < 7; i++) o->dims[i] = (unsigned)(size_t)v[1 + i];
        void **extra = v[9];
        void *buf = NULL;
        size_t size = 0;
        for (int i = 0; extra && extra[i]; i += 2) {
            if (extra[i] == (void *)1) buf = extra[i + 1];
            else if (extra[i] == (void *)2 && extra[i + 1]) size = *(size_t *)extra[i + 1];
        }
        if (!buf || size > sizeof o->params) {
            g->invalid = 1; /* kernel parameters as an array: not used by cudacl */
            *r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
            return 1;
        }
        memcpy(o->params, buf, size);
        o->param_size = size;
    } else {
        o->m3 = *(const CUDA_MEMCPY3D *)a;
    }
    TRACE("captured op kind %d", kind);
    return 1;
}

static int capture_refuse(void *stream, CUresult *r) {
    struct fake_stream *st = stream;
    if (!st || !st->capturing) return 0;
    st->capturing->invalid = 1;
    *r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    TRACE("call not allowed on a capturing stream");
    return 1;
}

CUresult cuStreamBeginCapture_v2(void *s, int mode) {
    struct fake_stream *st = s;
    if (!st || mode < 0 || mode > 2) return CUDA_ERROR_INVALID_VALUE;
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    if (st->capturing) return CUDA_ERROR_ILLEGAL_STATE_FAKE;
    stream_wait_idle(st);
    st->capturing = calloc(1, sizeof *st->capturing);
    return st->capturing ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static void graph_free(struct fake_graph *g) {
    if (g) free(g->ops);
    free(g);
}

CUresult cuStreamEndCapture(void *s, void **graph) {
    struct fake_stream *st = s;
    if (!st || !graph) return CUDA_ERROR_INVALID_VALUE;
    if (!st->capturing) return CUDA_ERROR_ILLEGAL_STATE_FAKE;
    struct fake_graph *g = st->capturing;
    st->capturing = NULL;
    *graph = NULL;
    if (env_int("FAKECUDA_CAPTURE_FAILS", 0)) g->invalid = 1;
    if (g->invalid) {
        graph_free(g);
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    *graph = g;
    return CUDA_SUCCESS;
}

/* An instance is a copy of the graph's operations. */
CUresult cuGraphInstantiate(void **exec, void *graph, void *error_node, char *log, size_t log_size) {
    (void)error_node, (void)log, (void)log_size;
    struct fake_graph *g = graph, *e;
    if (!exec || !g) return CUDA_ERROR_INVALID_VALUE;
    e = calloc(1, sizeof *e);
    if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
    e->ops = malloc((g->n ? g->n : 1) * sizeof *e->ops);
    if (!e->ops) {
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (g->n) memcpy(e->ops, g->ops, g->n * sizeof *e->ops);
    e->n = e->cap = g->n;
    *exec = e;
    COUNT(graphs_instantiated, 1);
    return CUDA_SUCCESS;
}

#ifndef FAKECUDA_CUDA_10_2
CUresult cuGraphInstantiate_v2(void **exec, void *graph, void *error_node, char *log, size_t log_size) {
    return cuGraphInstantiate(exec, graph, error_node, log, log_size);
}

/* CUDA 11.4+ (what cuda.h's cuGraphInstantiate names since 12.0): no flags are known here. */
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    return cuGraphInstantiate(exec, graph, NULL, NULL, 0);
}
#endif

CUresult cuGraphLaunch(void *exec, void *s) {
    struct fake_graph *e = exec;
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    { CUresult r_ = check_stream(s); if (r_) return r_; }
    COUNT(graph_launches, 1);
    for (size_t i = 0; i < e->n; i++) {
        struct cap_op *o = &e->ops[i];
        CUresult r = CUDA_SUCCESS;
        if (o->kind == 0) {
            COUNT(dtod_calls, 1);
            COUNT(dtod_bytes, o->n);
            r = copy_on(s, o->dst, o->src, o->n, 0, 0);
        } else if (o->kind == 1) {
            r = memset_on(s, (CUdeviceptr)(uintptr_t)o->dst, o->set[0], (unsigned)o->set[1], o->set[2], o->set[3], (int)o->set[4]);
        } else if (o->kind == 2) {
            size_t size = o->param_size;
            void *extra[] = {(void *)1, o->params, (void *)2, &size, (void *)0};
            r = cuLaunchKernel(o->f, o->dims[0], o->dims[1], o->dims[2], o->dims[3], o->dims[4], o->dims[5], o->dims[6], s, NULL, extra);
        } else {
            r = cuMemcpy3DAsync_v2(&o->m3, s);
        }
        if (r) return r;
    }
    return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(void *exec) {
    if (!exec) return CUDA_ERROR_INVALID_VALUE;
    graph_free(exec);
    return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(void *graph) {
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    graph_free(graph);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- errors */

static const char *error_name(CUresult r) {
    switch (r) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case CUDA_ERROR_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
    case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED";
    case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
    default: return NULL;
    }
}

CUresult cuGetErrorName(CUresult r, const char **s) {
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    *s = error_name(r);
    return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    *s = error_name(r);
    return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
