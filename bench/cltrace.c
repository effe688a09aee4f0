/*
 * cltrace: a front for the OpenCL ICD loader that watches the calls an application makes, in one
 * of several modes (CLTRACE=mode[,mode...], default calls):
 *
 *   calls    every call in order, with its duration, its thread and the arguments that matter,
 *            plus every event callback (how long after its registration it ran, on which thread,
 *            for how long); at exit one line per record, "t_us dur_us tid name args" (t from the
 *            first record kept), then "SUM name calls us/call" per entry point. The records sit in
 *            memory until then, so the timing of a call includes no I/O.
 *            CLTRACE_SKIP=n (records skipped first), CLTRACE_MAX=n (records kept, 400000).
 *   sum      per entry point the call count and the wall time spent inside, with the process's
 *            wall time (the rest is the program's own work), written at exit: "process wall X s,
 *            inside OpenCL Y s", then "name calls s us/call". Nothing for a process that made no
 *            OpenCL call (a shell or other child of the program).
 *   count    for bench/opencv/ocvbench.cpp: kernel launches, program builds, their failures, and
 *            every error a wrapped call returns (queries excepted), each error on stderr
 *            ("cltrace: name=code", the first 200) with the build log of a failed build; OpenCV
 *            falls back to its CPU code silently when an OpenCL call fails, and these counts tell.
 *            Exported for dlsym: clcount_stats() (launches, failed launches, builds, failed
 *            builds, errors, last error code; NULL unless this mode is on), clcount_last_error()
 *            ("name=code"), clcount_profile_reset() and clcount_profile_print(label, per) (host
 *            time per entry point since the reset: "PROF label name calls/per us/per us/call").
 *            CLTRACE_DUMP=dir: every program built is written there as <n>.bin (its binary: PTX
 *            on NVIDIA, cudacl's container) with <n>.txt (kernel names, options);
 *            CLTRACE_BUFFERS=1: each clCreateBuffer (flags, size, host pointer) on stderr.
 *   defines  for each program source created, its "#define NAME <integer>" lines on stderr
 *            ("[cltrace] program: NAME V; ..."): how CLBlast passes the tuning parameters it
 *            picked (bench/clblast_sgemm.c). CLTRACE_SOURCES=dir also writes each source there as
 *            program-<n>.cl.
 *
 * Build (it must itself need libOpenCL.so.1, so that a dlsym on it finds the other entry points):
 *   cc -O2 -Wall -Wextra -shared -fPIC bench/cltrace.c -o cltrace.so -ldl -lpthread \
 *      -Wl,--no-as-needed -lOpenCL
 * Use: LD_PRELOAD=./cltrace.so prog, or for OpenCV OPENCV_OPENCL_RUNTIME=./cltrace.so (OpenCV
 * dlopen()s that and dlsym()s every entry point on it). CLTRACE_OUT=file: where calls and sum
 * write (appended to; default stderr). CLTRACE_NEXT=lib: forward to lib (loaded RTLD_GLOBAL)
 * instead of libOpenCL.so.1.
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 1, SUM = 2, COUNT = 4, DEFINES = 8 };
static int mode = CALLS;

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

/* ---- calls: the ordered records ---- */
struct rec {
    long t0, dur;
    int tid;
    const char *name;
    uint64_t a[4];
};
static struct rec *recs;
static long nrec, maxrec = 400000, skip;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void note(const char *name, long t0, long d, uint64_t a0, uint64_t a1, uint64_t a2,
                 uint64_t a3) {
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

/* ---- per entry point: sum's totals (whole process), count's profile (since a reset) ---- */
#define NSLOT 128
static struct slot {
    const char *name;
    long calls, ns;           /* sum */
    long prof_calls, prof_ns; /* count */
} slots[NSLOT];
static int nslot;
static long t_start;

static int slot_of(const char *name) {
    pthread_mutex_lock(&mu);
    int i = 0;
    while (i < nslot && strcmp(slots[i].name, name)) i++;
    if (i == nslot && nslot < NSLOT) slots[nslot++].name = name;
    pthread_mutex_unlock(&mu);
    return i < NSLOT ? i : NSLOT - 1;
}

/* After each wrapped call: its duration into every mode that keeps one. */
static long after(int s, long t0) {
    long d = now_ns() - t0;
    if (mode & SUM) {
        __atomic_add_fetch(&slots[s].calls, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&slots[s].ns, d, __ATOMIC_RELAXED);
    }
    if (mode & COUNT) {
        __atomic_add_fetch(&slots[s].prof_calls, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&slots[s].prof_ns, d, __ATOMIC_RELAXED);
    }
    return d;
}

/* ---- count ---- */
static long stats[6];
static char last_error[160];

long *clcount_stats(void) { return mode & COUNT ? stats : NULL; }
const char *clcount_last_error(void) { return last_error; }
void clcount_profile_reset(void) {
    for (int i = 0; i < nslot; i++) slots[i].prof_calls = slots[i].prof_ns = 0;
}
/* One line per entry point called since the reset, most time first: calls and microseconds per
 * `per` (the number of operations), and microseconds per call. */
void clcount_profile_print(const char *label, int per) {
    int order[NSLOT], n = 0;
    for (int i = 0; i < nslot; i++)
        if (slots[i].prof_calls) order[n++] = i;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (slots[order[b]].prof_ns > slots[order[a]].prof_ns) {
                int t = order[a];
                order[a] = order[b], order[b] = t;
            }
    for (int k = 0; k < n; k++) {
        struct slot *p = &slots[order[k]];
        printf("PROF\t%s\t%s\t%.2f\t%.2f\t%.2f\n", label, p->name, (double)p->prof_calls / per,
               p->prof_ns / 1e3 / per, p->prof_ns / 1e3 / p->prof_calls);
    }
    fflush(stdout);
}

static void failed(const char *name, const char *what, cl_int err) {
    if (!(mode & COUNT)) return;
    long n = __atomic_add_fetch(&stats[4], 1, __ATOMIC_RELAXED);
    stats[5] = err;
    snprintf(last_error, sizeof last_error, "%s%s%s=%d", name, what ? ":" : "", what ? what : "",
             err);
    if (n <= 200) fprintf(stderr, "cltrace: %s\n", last_error);
}

/* ---- start and exit ---- */
static void *next_lib;

__attribute__((constructor)) static void start(void) {
    t_start = now_ns();
    const char *m = getenv("CLTRACE");
    if (m && *m) {
        mode = 0;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", m);
        for (char *save, *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
            if (!strcmp(w, "calls")) mode |= CALLS;
            else if (!strcmp(w, "sum")) mode |= SUM;
            else if (!strcmp(w, "count")) mode |= COUNT;
            else if (!strcmp(w, "defines")) mode |= DEFINES;
            else fprintf(stderr, "cltrace: unknown mode %s (calls, sum, count, defines)\n", w);
        }
    }
    if (mode & CALLS) {
        const char *mx = getenv("CLTRACE_MAX"), *s = getenv("CLTRACE_SKIP");
        if (mx) maxrec = atol(mx);
        if (s) skip = atol(s);
        recs = calloc(maxrec, sizeof *recs);
    }
    const char *n = getenv("CLTRACE_NEXT");
    next_lib = dlopen(n && *n ? n : "libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!next_lib) fprintf(stderr, "cltrace: %s\n", dlerror());
}

static void write_calls(FILE *o) {
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
}

static void write_sum(FILE *o, long total_ns) {
    fprintf(o, "process wall %.3f s, inside OpenCL %.3f s\n", (now_ns() - t_start) / 1e9,
            total_ns / 1e9);
    for (int i = 0; i < nslot; i++)
        if (slots[i].calls)
            fprintf(o, "%-28s %8ld calls %10.3f s %10.1f us/call\n", slots[i].name,
                    slots[i].calls, slots[i].ns / 1e9, slots[i].ns / 1e3 / slots[i].calls);
}

__attribute__((destructor)) static void report(void) {
    long sum_calls = 0, sum_ns = 0;
    if (mode & SUM)
        for (int i = 0; i < nslot; i++) sum_calls += slots[i].calls, sum_ns += slots[i].ns;
    int calls = (mode & CALLS) && nrec > 0, sum = sum_calls > 0;
    if (!calls && !sum) return;
    const char *path = getenv("CLTRACE_OUT");
    FILE *o = path && *path ? fopen(path, "a") : stderr;
    if (!o) return;
    if (calls) write_calls(o);
    if (sum) write_sum(o, sum_ns);
    if (o != stderr) fclose(o);
}

static void *real(const char *name) {
    void *f = next_lib ? dlsym(next_lib, name) : NULL;
    if (!f) {
        fprintf(stderr, "cltrace: %s not found in %s\n", name,
                getenv("CLTRACE_NEXT") ? getenv("CLTRACE_NEXT") : "libOpenCL.so.1");
        abort();
    }
    return f;
}

/* ---- the wrappers ---- */
#define U(x) ((uint64_t)(uintptr_t)(x))
#define FIND(name, str)                                               \
    static __typeof__(&name) f_;                                      \
    static int s_ = -1;                                               \
    if (!f_) f_ = real(str), s_ = slot_of(str)
/* The four values calls records, evaluated only in that mode. */
#define RECORD(str, t0, d, a0, a1, a2, a3)                            \
    if (mode & CALLS) note(str, t0, d, U(a0), U(a1), U(a2), U(a3))

/* A call that returns its error code; with `report`, count counts a code other than CL_SUCCESS. */
#define WRAP_CODE(name, report, params, args, a0, a1, a2, a3)         \
    cl_int name params {                                              \
        FIND(name, #name);                                            \
        long t0 = now_ns();                                           \
        cl_int r_ = f_ args;                                          \
        long d_ = after(s_, t0);                                      \
        RECORD(#name, t0, d_, a0, a1, a2, a3);                        \
        if (report && r_ != CL_SUCCESS) failed(#name, NULL, r_);      \
        return r_;                                                    \
    }
#define WRAP(name, params, args, a0, a1, a2, a3) WRAP_CODE(name, 1, params, args, a0, a1, a2, a3)
/* A query: applications ask for things a platform may not have, and that is no failure. */
#define WRAP_QUERY(name, params, args, a0, a1, a2, a3)                \
    WRAP_CODE(name, 0, params, args, a0, a1, a2, a3)
/* A call that returns an object, its error code through errcode_ret (named e_ret). */
#define WRAP_RET(type, name, params, args, a0, a1, a2, a3)            \
    type name params {                                                \
        FIND(name, #name);                                            \
        cl_int e_ = CL_SUCCESS;                                       \
        if (!e_ret) e_ret = &e_;                                      \
        long t0 = now_ns();                                           \
        type r_ = f_ args;                                            \
        long d_ = after(s_, t0);                                      \
        RECORD(#name, t0, d_, a0, a1, a2, a3);                        \
        if (*e_ret != CL_SUCCESS) failed(#name, NULL, *e_ret);        \
        return r_;                                                    \
    }
#define Q cl_command_queue q
#define EV cl_uint nw, const cl_event *w, cl_event *ev
#define EVS ((U(ev) << 8) | nw) /* the event pointer (0: none asked for) and the wait count */
#define VOL(r) ((r) ? (r)[0] * (r)[1] * (r)[2] : 0)

WRAP(clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void *v), (k, i, n, v), k, i, n,
     v && n == 8 ? *(const uint64_t *)v : 0)
WRAP(clEnqueueReadBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, void *p, EV),
     (q, m, b, o, n, p, nw, w, ev), m, b, n, EVS)
WRAP(clEnqueueWriteBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, const void *p, EV),
     (q, m, b, o, n, p, nw, w, ev), m, b, n, EVS)
WRAP(clEnqueueCopyBuffer, (Q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, EV),
     (q, s, d, so, dof, n, nw, w, ev), s, d, n, EVS)
WRAP(clEnqueueFillBuffer, (Q, cl_mem m, const void *p, size_t ps, size_t o, size_t n, EV),
     (q, m, p, ps, o, n, nw, w, ev), m, ps, n, EVS)
WRAP(clEnqueueReadBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
      size_t bsp, size_t hrp, size_t hsp, void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev), m, b, VOL(r), EVS)
WRAP(clEnqueueWriteBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp,
      size_t bsp, size_t hrp, size_t hsp, const void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev), m, b, VOL(r), EVS)
WRAP(clEnqueueCopyBufferRect,
     (Q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof, const size_t *r, size_t srp,
      size_t ssp, size_t drp, size_t dsp, EV),
     (q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, w, ev), s, d, VOL(r), EVS)
WRAP(clEnqueueWriteImage,
     (Q, cl_mem i, cl_bool b, const size_t *o, const size_t *r, size_t rp, size_t sp,
      const void *p, EV),
     (q, i, b, o, r, rp, sp, p, nw, w, ev), i, b, VOL(r), EVS)
WRAP(clEnqueueReadImage,
     (Q, cl_mem i, cl_bool b, const size_t *o, const size_t *r, size_t rp, size_t sp, void *p,
      EV),
     (q, i, b, o, r, rp, sp, p, nw, w, ev), i, b, VOL(r), EVS)
WRAP(clEnqueueCopyImage,
     (Q, cl_mem s, cl_mem d, const size_t *so, const size_t *dor, const size_t *r, EV),
     (q, s, d, so, dor, r, nw, w, ev), s, d, VOL(r), EVS)
WRAP(clEnqueueFillImage, (Q, cl_mem i, const void *c, const size_t *o, const size_t *r, EV),
     (q, i, c, o, r, nw, w, ev), i, 0, VOL(r), EVS)
WRAP(clEnqueueCopyBufferToImage,
     (Q, cl_mem s, cl_mem d, size_t so, const size_t *dor, const size_t *r, EV),
     (q, s, d, so, dor, r, nw, w, ev), s, d, VOL(r), EVS)
WRAP(clEnqueueCopyImageToBuffer,
     (Q, cl_mem s, cl_mem d, const size_t *sor, const size_t *r, size_t dof, EV),
     (q, s, d, sor, r, dof, nw, w, ev), s, d, VOL(r), EVS)
WRAP(clEnqueueUnmapMemObject, (Q, cl_mem m, void *p, EV), (q, m, p, nw, w, ev), m, p, 0, EVS)
WRAP(clEnqueueMarkerWithWaitList, (Q, EV), (q, nw, w, ev), q, 0, 0, EVS)
WRAP(clEnqueueBarrierWithWaitList, (Q, EV), (q, nw, w, ev), q, 0, 0, EVS)
WRAP(clFinish, (Q), (q), q, 0, 0, 0)
WRAP(clFlush, (Q), (q), q, 0, 0, 0)
WRAP(clWaitForEvents, (cl_uint n, const cl_event *l), (n, l), n, l ? l[0] : 0, 0, 0)
WRAP(clReleaseKernel, (cl_kernel k), (k), k, 0, 0, 0)
WRAP(clRetainKernel, (cl_kernel k), (k), k, 0, 0, 0)
WRAP(clReleaseMemObject, (cl_mem m), (m), m, 0, 0, 0)
WRAP(clRetainMemObject, (cl_mem m), (m), m, 0, 0, 0)
WRAP(clReleaseEvent, (cl_event e), (e), e, 0, 0, 0)
WRAP(clRetainEvent, (cl_event e), (e), e, 0, 0, 0)
WRAP(clReleaseProgram, (cl_program p), (p), p, 0, 0, 0)
WRAP(clRetainProgram, (cl_program p), (p), p, 0, 0, 0)
WRAP(clReleaseSampler, (cl_sampler sm), (sm), sm, 0, 0, 0)
WRAP(clSetUserEventStatus, (cl_event e, cl_int st), (e, st), e, st, 0, 0)
WRAP_QUERY(clGetEventInfo, (cl_event e, cl_event_info i, size_t n, void *v, size_t *r),
           (e, i, n, v, r), e, i, n, 0)
WRAP_QUERY(clGetEventProfilingInfo,
           (cl_event e, cl_profiling_info i, size_t n, void *v, size_t *r), (e, i, n, v, r), e, i,
           n, 0)
WRAP_QUERY(clGetKernelWorkGroupInfo,
           (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t n, void *v,
            size_t *r),
           (k, d, i, n, v, r), k, i, n, 0)
WRAP_QUERY(clGetKernelInfo, (cl_kernel k, cl_kernel_info i, size_t n, void *v, size_t *r),
           (k, i, n, v, r), k, i, n, 0)
WRAP_QUERY(clGetKernelArgInfo,
           (cl_kernel k, cl_uint a, cl_kernel_arg_info i, size_t n, void *v, size_t *r),
           (k, a, i, n, v, r), k, a, i, n)
WRAP_QUERY(clGetMemObjectInfo, (cl_mem m, cl_mem_info i, size_t n, void *v, size_t *r),
           (m, i, n, v, r), m, i, n, 0)
WRAP_QUERY(clGetImageInfo, (cl_mem m, cl_image_info i, size_t n, void *v, size_t *r),
           (m, i, n, v, r), m, i, n, 0)
WRAP_QUERY(clGetDeviceInfo, (cl_device_id d, cl_device_info i, size_t n, void *v, size_t *r),
           (d, i, n, v, r), d, i, n, 0)
WRAP_QUERY(clGetPlatformInfo,
           (cl_platform_id p, cl_platform_info i, size_t n, void *v, size_t *r), (p, i, n, v, r),
           p, i, n, 0)
WRAP_QUERY(clGetContextInfo, (cl_context c, cl_context_info i, size_t n, void *v, size_t *r),
           (c, i, n, v, r), c, i, n, 0)
WRAP_QUERY(clGetCommandQueueInfo, (Q, cl_command_queue_info i, size_t n, void *v, size_t *r),
           (q, i, n, v, r), q, i, n, 0)
WRAP_QUERY(clGetProgramInfo, (cl_program p, cl_program_info i, size_t n, void *v, size_t *r),
           (p, i, n, v, r), p, i, n, 0)
WRAP_QUERY(clGetProgramBuildInfo,
           (cl_program p, cl_device_id d, cl_program_build_info i, size_t n, void *v, size_t *r),
           (p, d, i, n, v, r), p, i, n, 0)
WRAP_RET(cl_program, clCreateProgramWithBinary,
         (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
          const unsigned char **b, cl_int *st, cl_int *e_ret),
         (c, n, d, l, b, st, e_ret), c, n, 0, 0)
WRAP_RET(cl_mem, clCreateSubBuffer,
         (cl_mem m, cl_mem_flags fl, cl_buffer_create_type t, const void *i, cl_int *e_ret),
         (m, fl, t, i, e_ret), m, fl, i ? ((const size_t *)i)[0] : 0,
         i ? ((const size_t *)i)[1] : 0)
WRAP_RET(cl_mem, clCreateImage,
         (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, const cl_image_desc *d,
          void *p, cl_int *e_ret),
         (c, fl, fmt, d, p, e_ret), fl, d ? d->image_type : 0, d ? d->image_width : 0,
         d ? d->image_height : 0)
WRAP_RET(cl_mem, clCreateImage2D,
         (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, size_t wd, size_t h,
          size_t rp, void *p, cl_int *e_ret),
         (c, fl, fmt, wd, h, rp, p, e_ret), fl, CL_MEM_OBJECT_IMAGE2D, wd, h)
WRAP_RET(cl_mem, clCreateImage3D,
         (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, size_t wd, size_t h,
          size_t dp, size_t rp, size_t sp, void *p, cl_int *e_ret),
         (c, fl, fmt, wd, h, dp, rp, sp, p, e_ret), fl, CL_MEM_OBJECT_IMAGE3D, wd, h)
WRAP_RET(cl_sampler, clCreateSampler,
         (cl_context c, cl_bool n, cl_addressing_mode a, cl_filter_mode fm, cl_int *e_ret),
         (c, n, a, fm, e_ret), c, n, a, fm)
WRAP_RET(cl_kernel, clCreateKernel, (cl_program p, const char *name, cl_int *e_ret),
         (p, name, e_ret), p, 0, 0, 0)
WRAP_RET(void *, clEnqueueMapBuffer,
         (Q, cl_mem m, cl_bool b, cl_map_flags fl, size_t o, size_t n, EV, cl_int *e_ret),
         (q, m, b, fl, o, n, nw, w, ev, e_ret), m, b, n, EVS)
WRAP_RET(void *, clEnqueueMapImage,
         (Q, cl_mem i, cl_bool b, cl_map_flags fl, const size_t *o, const size_t *r, size_t *rp,
          size_t *sp, EV, cl_int *e_ret),
         (q, i, b, fl, o, r, rp, sp, nw, w, ev, e_ret), i, b, VOL(r), EVS)
WRAP_RET(cl_event, clCreateUserEvent, (cl_context c, cl_int *e_ret), (c, e_ret), c, 0, 0, 0)

/* clCreateBuffer: CLTRACE_BUFFERS=1 (count) prints each creation first. */
static cl_mem create_buffer(cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *e_ret);
cl_mem clCreateBuffer(cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *e_ret) {
    static int print = -1;
    if (print < 0) print = (mode & COUNT) && getenv("CLTRACE_BUFFERS");
    if (print)
        fprintf(stderr, "cltrace: clCreateBuffer(flags 0x%llx, %zu bytes, host %p)\n",
                (unsigned long long)fl, n, p);
    return create_buffer(c, fl, n, p, e_ret);
}
#define clCreateBuffer create_buffer
static WRAP_RET(cl_mem, clCreateBuffer,
                (cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *e_ret),
                (c, fl, n, p, e_ret), fl, n, p, 0)
#undef clCreateBuffer

/* clCreateProgramWithSource: defines prints the numeric #defines (and CLTRACE_SOURCES keeps the
 * source) first. */
static void defines(cl_uint count, const char **strings, const size_t *lengths) {
    fprintf(stderr, "[cltrace] program:");
    for (cl_uint i = 0; i < count && strings; i++) {
        const char *s = strings[i];
        size_t len = lengths && lengths[i] ? lengths[i] : strlen(s);
        for (const char *p = s; p < s + len;) {
            const char *e = memchr(p, '\n', s + len - p);
            if (!e) e = s + len;
            /* "#define NAME 123": a name of capitals, digits and '_', then digits only. */
            if (e - p > 8 && !strncmp(p, "#define ", 8)) {
                const char *n = p + 8, *v;
                for (v = n; v < e && ((*v >= 'A' && *v <= 'Z') || (*v >= '0' && *v <= '9') ||
                                      *v == '_');
                     v++) {
                }
                int numeric = v > n && v < e && *v == ' ' && v + 1 < e;
                for (const char *d = v + 1; numeric && d < e; d++) numeric = *d >= '0' && *d <= '9';
                if (numeric) fprintf(stderr, " %.*s;", (int)(e - n), n);
            }
            p = e + 1;
        }
    }
    fprintf(stderr, "\n");
    static int programs;
    const char *dir = getenv("CLTRACE_SOURCES");
    if (dir && strings) {
        char path[4096];
        snprintf(path, sizeof path, "%s/program-%d.cl", dir,
                 __atomic_fetch_add(&programs, 1, __ATOMIC_RELAXED));
        FILE *f = fopen(path, "w");
        for (cl_uint i = 0; f && i < count; i++)
            fwrite(strings[i], 1, lengths && lengths[i] ? lengths[i] : strlen(strings[i]), f);
        if (f) fclose(f);
    }
}
static cl_program create_source(cl_context c, cl_uint n, const char **src, const size_t *l,
                                cl_int *e_ret);
cl_program clCreateProgramWithSource(cl_context c, cl_uint n, const char **src, const size_t *l,
                                     cl_int *e_ret) {
    if (mode & DEFINES) defines(n, src, l);
    return create_source(c, n, src, l, e_ret);
}
#define clCreateProgramWithSource create_source
static WRAP_RET(cl_program, clCreateProgramWithSource,
                (cl_context c, cl_uint n, const char **src, const size_t *l, cl_int *e_ret),
                (c, n, src, l, e_ret), c, n, 0, 0)
#undef clCreateProgramWithSource

cl_int clEnqueueNDRangeKernel(Q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *g,
                              const size_t *l, EV) {
    FIND(clEnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
    long t0 = now_ns();
    cl_int err = f_(q, k, dim, off, g, l, nw, w, ev);
    long d = after(s_, t0);
    RECORD("clEnqueueNDRangeKernel", t0, d, k, g ? g[0] : 0, l ? l[0] : 0, EVS);
    if (mode & COUNT) {
        __atomic_add_fetch(&stats[0], 1, __ATOMIC_RELAXED);
        if (err != CL_SUCCESS) {
            __atomic_add_fetch(&stats[1], 1, __ATOMIC_RELAXED);
            char name[100] = "?";
            __typeof__(&clGetKernelInfo) info = real("clGetKernelInfo");
            info(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
            failed("clEnqueueNDRangeKernel", name, err);
        }
    }
    return err;
}

/* count, CLTRACE_DUMP: a program's binary and its kernel names and options. */
static void dump(cl_program p, const char *options) {
    static int count;
    const char *dir = getenv("CLTRACE_DUMP");
    if (!dir) return;
    int n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    __typeof__(&clGetProgramInfo) info = real("clGetProgramInfo");
    size_t size = 0;
    if (info(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size) return;
    unsigned char *bin = malloc(size);
    char names[4096] = "", path[4096];
    if (bin && info(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        snprintf(path, sizeof path, "%s/%03d.bin", dir, n);
        FILE *f = fopen(path, "wb");
        if (f) fwrite(bin, 1, size, f), fclose(f);
    }
    free(bin);
    info(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    snprintf(path, sizeof path, "%s/%03d.txt", dir, n);
    FILE *f = fopen(path, "w");
    if (f) fprintf(f, "%s\n%s\n", names, options ? options : ""), fclose(f);
}

cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs, const char *options,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    FIND(clBuildProgram, "clBuildProgram");
    long t0 = now_ns();
    cl_int err = f_(p, ndev, devs, options, notify, data);
    long d = after(s_, t0);
    RECORD("clBuildProgram", t0, d, p, 0, 0, 0);
    if (!(mode & COUNT)) return err;
    __atomic_add_fetch(&stats[2], 1, __ATOMIC_RELAXED);
    if (err == CL_SUCCESS) {
        dump(p, options);
        return err;
    }
    __atomic_add_fetch(&stats[3], 1, __ATOMIC_RELAXED);
    failed("clBuildProgram", NULL, err);
    fprintf(stderr, "cltrace: clBuildProgram options: %s\n", options ? options : "");
    cl_device_id dev = devs && ndev ? devs[0] : NULL;
    if (!dev) {
        __typeof__(&clGetProgramInfo) pinfo = real("clGetProgramInfo");
        pinfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
    }
    __typeof__(&clGetProgramBuildInfo) binfo = real("clGetProgramBuildInfo");
    size_t n = 0;
    if (binfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n) {
        char *log = malloc(n + 1);
        if (log && binfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
            log[n] = 0;
            fprintf(stderr, "cltrace: build log (%zu bytes, first 3000):\n%.3000s\n", n, log);
        }
        free(log);
    }
    return err;
}

/* Callbacks (calls): a trampoline records when (after registration), where, how long each ran. */
struct tramp {
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *user;
    long registered;
};
static void CL_CALLBACK trampoline(cl_event e, cl_int status, void *p) {
    struct tramp *t = p;
    long t0 = now_ns();
    t->fn(e, status, t->user);
    note("(callback)", t0, now_ns() - t0, U(e), (uint64_t)(t0 - t->registered) / 1000,
         (uint64_t)status, 0);
    free(t);
}
cl_int clSetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                          void *user) {
    FIND(clSetEventCallback, "clSetEventCallback");
    struct tramp *t = (mode & CALLS) && fn ? malloc(sizeof *t) : NULL;
    long t0 = now_ns();
    cl_int r;
    if (!t) {
        r = f_(e, type, fn, user);
    } else {
        t->fn = fn, t->user = user, t->registered = t0;
        r = f_(e, type, trampoline, t);
        if (r != CL_SUCCESS) free(t);
    }
    long d = after(s_, t0);
    RECORD("clSetEventCallback", t0, d, e, type, 0, 0);
    if (r != CL_SUCCESS) failed("clSetEventCallback", NULL, r);
    return r;
}
