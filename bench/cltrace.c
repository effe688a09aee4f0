/*
 * cltrace: a front for the OpenCL ICD loader that records every call of the entry points an
 * application like OpenCV makes per operation (in order, with its duration, its thread, and the
 * arguments that matter), plus every event callback (how long after its registration it ran, on
 * which thread, for how long). Written to find the fixed host cost per operation of one OpenCL
 * implementation against another: bench/clcalltime.c sums per entry point; this keeps the order.
 *
 *   cc -O2 -shared -fPIC bench/cltrace.c -o cltrace.so -ldl -lpthread -Wl,--no-as-needed -lOpenCL
 *   OpenCV:  OPENCV_OPENCL_RUNTIME=./cltrace.so   (OpenCV dlsym()s every entry point on it)
 *   others:  LD_PRELOAD=./cltrace.so
 *   CLTRACE_OUT=file (default stderr) CLTRACE_SKIP=n (records skipped first) CLTRACE_MAX=n
 *   CLTRACE_NEXT=lib: forward to lib (another such front, e.g. bench/opencv's clcount.so, loaded
 *   RTLD_GLOBAL so that what it exports stays visible) instead of libOpenCL.so.1
 *
 * At exit it writes one line per record, "t_us dur_us tid name args" (t from the first record
 * kept), then a summary per entry point (calls, us per call). The records sit in memory until
 * then: the timing of a call does not include any I/O.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rec {
    long t0, dur;
    int tid;
    const char *name;
    uint64_t a[4];
};
static struct rec *recs;
static long nrec, maxrec = 400000, skip;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int tid(void) {
    static __thread int t;
    if (!t) t = (int)syscall(SYS_gettid);
    return t;
}

__attribute__((constructor)) static void start(void) {
    const char *m = getenv("CLTRACE_MAX"), *s = getenv("CLTRACE_SKIP");
    if (m) maxrec = atol(m);
    if (s) skip = atol(s);
    recs = calloc(maxrec, sizeof *recs);
}

static void note(const char *name, long t0, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3) {
    long d = now_ns() - t0;
    pthread_mutex_lock(&mu);
    if (skip > 0) {
        skip--;
    } else if (recs && nrec < maxrec) {
        struct rec *r = &recs[nrec++];
        r->t0 = t0, r->dur = d, r->tid = tid(), r->name = name;
        r->a[0] = a0, r->a[1] = a1, r->a[2] = a2, r->a[3] = a3;
    }
    pthread_mutex_unlock(&mu);
}

__attribute__((destructor)) static void report(void) {
    if (!nrec) return;
    const char *path = getenv("CLTRACE_OUT");
    FILE *o = path ? fopen(path, "w") : stderr;
    if (!o) return;
    long base = recs[0].t0;
    for (long i = 0; i < nrec; i++) {
        struct rec *r = &recs[i];
        /* Pointers and flags in hex; a callback's delay (us) and status in decimal. */
        if (r->name[0] == '(')
            fprintf(o, "%10.1f %8.2f %6d %-28s %" PRIx64 " %" PRIu64 " %d\n", (r->t0 - base) / 1e3,
                    r->dur / 1e3, r->tid, r->name, r->a[0], r->a[1], (int)r->a[2]);
        else
            fprintf(o, "%10.1f %8.2f %6d %-28s %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
                    (r->t0 - base) / 1e3, r->dur / 1e3, r->tid, r->name, r->a[0], r->a[1], r->a[2],
                    r->a[3]);
    }
    /* The summary: names are string literals, one pointer per entry point. */
    const char *names[128];
    long calls[128] = {0}, ns[128] = {0};
    int n = 0;
    for (long i = 0; i < nrec; i++) {
        int k = 0;
        while (k < n && names[k] != recs[i].name) k++;
        if (k == n && n < 128) names[n++] = recs[i].name;
        if (k < 128) calls[k]++, ns[k] += recs[i].dur;
    }
    fprintf(o, "SUMMARY records %ld\n", nrec);
    for (int k = 0; k < n; k++)
        fprintf(o, "SUM %-28s %8ld calls %10.2f us/call\n", names[k], calls[k],
                ns[k] / 1e3 / calls[k]);
    if (o != stderr) fclose(o);
}

static void *next_lib;
__attribute__((constructor)) static void open_next(void) {
    const char *n = getenv("CLTRACE_NEXT");
    next_lib = dlopen(n && *n ? n : "libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!next_lib) fprintf(stderr, "cltrace: %s\n", dlerror());
}

static void *real(const char *name) {
    void *lib = next_lib;
    void *f = lib ? dlsym(lib, name) : NULL;
    if (!f) {
        fprintf(stderr, "cltrace: %s not found in libOpenCL.so.1\n", name);
        abort();
    }
    return f;
}

#define U(x) ((uint64_t)(uintptr_t)(x))
/* A wrapper: name, return type, parameters, arguments, four values recorded. */
#define WRAP(RET, name, params, args, a0, a1, a2, a3) \
    RET name params {                                  \
        static __typeof__(&name) f;                    \
        if (!f) f = real(#name);                       \
        long t0 = now_ns();                            \
        RET r_ = f args;                               \
        note(#name, t0, U(a0), U(a1), U(a2), U(a3));   \
        return r_;                                     \
    }
#define Q cl_command_queue q
#define EV cl_uint nw, const cl_event *w, cl_event *ev
#define EVS(x) (x) /* the event pointer: 0 when no event was asked for */

WRAP(cl_int, clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void *v), (k, i, n, v), k, i,
     n, v && n == 8 ? *(const uint64_t *)v : 0)
WRAP(cl_int, clEnqueueNDRangeKernel,
     (Q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *g, const size_t *l, EV),
     (q, k, dim, off, g, l, nw, w, ev), k, g ? g[0] : 0, l ? l[0] : 0, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueReadBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, void *p, EV),
     (q, m, b, o, n, p, nw, w, ev), m, b, n, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueWriteBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, const void *p, EV),
     (q, m, b, o, n, p, nw, w, ev), m, b, n, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueCopyBuffer, (Q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, EV),
     (q, s, d, so, dof, n, nw, w, ev), s, d, n, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueFillBuffer, (Q, cl_mem m, const void *p, size_t ps, size_t o, size_t n, EV),
     (q, m, p, ps, o, n, nw, w, ev), m, ps, n, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueReadBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
      size_t bsp, size_t hrp, size_t hsp, void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev), m, b, r[0] * r[1] * r[2],
     (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueWriteBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
      size_t bsp, size_t hrp, size_t hsp, const void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev), m, b, r[0] * r[1] * r[2],
     (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueCopyBufferRect,
     (Q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof, const size_t *r, size_t srp,
      size_t ssp, size_t drp, size_t dsp, EV),
     (q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, w, ev), s, d, r[0] * r[1] * r[2],
     (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueUnmapMemObject, (Q, cl_mem m, void *p, EV), (q, m, p, nw, w, ev), m, p, 0,
     (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueMarkerWithWaitList, (Q, EV), (q, nw, w, ev), q, 0, 0, (U(ev) << 8) | nw)
WRAP(cl_int, clEnqueueBarrierWithWaitList, (Q, EV), (q, nw, w, ev), q, 0, 0, (U(ev) << 8) | nw)
WRAP(cl_int, clFinish, (Q), (q), q, 0, 0, 0)
WRAP(cl_int, clFlush, (Q), (q), q, 0, 0, 0)
WRAP(cl_int, clWaitForEvents, (cl_uint n, const cl_event *l), (n, l), n, l ? l[0] : 0, 0, 0)
WRAP(cl_int, clReleaseKernel, (cl_kernel k), (k), k, 0, 0, 0)
WRAP(cl_int, clRetainKernel, (cl_kernel k), (k), k, 0, 0, 0)
WRAP(cl_int, clReleaseMemObject, (cl_mem m), (m), m, 0, 0, 0)
WRAP(cl_int, clRetainMemObject, (cl_mem m), (m), m, 0, 0, 0)
WRAP(cl_int, clReleaseEvent, (cl_event e), (e), e, 0, 0, 0)
WRAP(cl_int, clRetainEvent, (cl_event e), (e), e, 0, 0, 0)
WRAP(cl_int, clReleaseProgram, (cl_program p), (p), p, 0, 0, 0)
WRAP(cl_int, clRetainProgram, (cl_program p), (p), p, 0, 0, 0)
WRAP(cl_int, clGetEventInfo, (cl_event e, cl_event_info i, size_t n, void *v, size_t *r),
     (e, i, n, v, r), e, i, n, 0)
WRAP(cl_int, clGetEventProfilingInfo, (cl_event e, cl_profiling_info i, size_t n, void *v, size_t *r),
     (e, i, n, v, r), e, i, n, 0)
WRAP(cl_int, clGetKernelWorkGroupInfo,
     (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t n, void *v, size_t *r),
     (k, d, i, n, v, r), k, i, n, 0)
WRAP(cl_int, clGetKernelInfo, (cl_kernel k, cl_kernel_info i, size_t n, void *v, size_t *r),
     (k, i, n, v, r), k, i, n, 0)
WRAP(cl_int, clGetKernelArgInfo,
     (cl_kernel k, cl_uint a, cl_kernel_arg_info i, size_t n, void *v, size_t *r),
     (k, a, i, n, v, r), k, a, i, n)
WRAP(cl_int, clGetMemObjectInfo, (cl_mem m, cl_mem_info i, size_t n, void *v, size_t *r),
     (m, i, n, v, r), m, i, n, 0)
WRAP(cl_int, clGetImageInfo, (cl_mem m, cl_image_info i, size_t n, void *v, size_t *r),
     (m, i, n, v, r), m, i, n, 0)
WRAP(cl_int, clGetDeviceInfo, (cl_device_id d, cl_device_info i, size_t n, void *v, size_t *r),
     (d, i, n, v, r), d, i, n, 0)
WRAP(cl_int, clGetPlatformInfo, (cl_platform_id p, cl_platform_info i, size_t n, void *v, size_t *r),
     (p, i, n, v, r), p, i, n, 0)
WRAP(cl_int, clGetContextInfo, (cl_context c, cl_context_info i, size_t n, void *v, size_t *r),
     (c, i, n, v, r), c, i, n, 0)
WRAP(cl_int, clGetCommandQueueInfo, (Q, cl_command_queue_info i, size_t n, void *v, size_t *r),
     (q, i, n, v, r), q, i, n, 0)
WRAP(cl_int, clGetProgramInfo, (cl_program p, cl_program_info i, size_t n, void *v, size_t *r),
     (p, i, n, v, r), p, i, n, 0)
WRAP(cl_int, clGetProgramBuildInfo,
     (cl_program p, cl_device_id d, cl_program_build_info i, size_t n, void *v, size_t *r),
     (p, d, i, n, v, r), p, i, n, 0)
WRAP(cl_int, clBuildProgram,
     (cl_program p, cl_uint nd, const cl_device_id *d, const char *o,
      void(CL_CALLBACK *cb)(cl_program, void *), void *u),
     (p, nd, d, o, cb, u), p, 0, 0, 0)
WRAP(cl_program, clCreateProgramWithSource,
     (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *e), (c, n, s, l, e), c, n, 0,
     0)
WRAP(cl_program, clCreateProgramWithBinary,
     (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l, const unsigned char **b,
      cl_int *st, cl_int *e),
     (c, n, d, l, b, st, e), c, n, 0, 0)
WRAP(cl_mem, clCreateBuffer, (cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *e),
     (c, fl, n, p, e), fl, n, p, 0)
WRAP(cl_mem, clCreateSubBuffer,
     (cl_mem m, cl_mem_flags fl, cl_buffer_create_type t, const void *i, cl_int *e),
     (m, fl, t, i, e), m, fl, i ? ((const size_t *)i)[0] : 0, i ? ((const size_t *)i)[1] : 0)
WRAP(cl_mem, clCreateImage,
     (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, const cl_image_desc *d, void *p,
      cl_int *e),
     (c, fl, fmt, d, p, e), fl, d ? d->image_type : 0, d ? d->image_width : 0,
     d ? d->image_height : 0)
WRAP(cl_kernel, clCreateKernel, (cl_program p, const char *name, cl_int *e), (p, name, e), p, 0, 0,
     0)
WRAP(void *, clEnqueueMapBuffer,
     (Q, cl_mem m, cl_bool b, cl_map_flags fl, size_t o, size_t n, EV, cl_int *e),
     (q, m, b, fl, o, n, nw, w, ev, e), m, b, n, (U(ev) << 8) | nw)
WRAP(cl_event, clCreateUserEvent, (cl_context c, cl_int *e), (c, e), c, 0, 0, 0)
WRAP(cl_int, clSetUserEventStatus, (cl_event e, cl_int s), (e, s), e, s, 0, 0)

/* Callbacks: a trampoline records when (after registration), where and how long each ran. */
struct tramp {
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *user;
    long registered;
};
static void CL_CALLBACK trampoline(cl_event e, cl_int status, void *p) {
    struct tramp *t = p;
    long t0 = now_ns();
    t->fn(e, status, t->user);
    note("(callback)", t0, U(e), (uint64_t)(t0 - t->registered) / 1000, status, 0);
    free(t);
}
cl_int clSetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                          void *user) {
    static __typeof__(&clSetEventCallback) f;
    if (!f) f = real("clSetEventCallback");
    struct tramp *t = malloc(sizeof *t);
    long t0 = now_ns();
    cl_int r;
    if (!t || !fn) {
        r = f(e, type, fn, user);
    } else {
        t->fn = fn, t->user = user, t->registered = t0;
        r = f(e, type, trampoline, t);
        if (r != CL_SUCCESS) free(t);
    }
    note("clSetEventCallback", t0, U(e), type, 0, 0);
    return r;
}
