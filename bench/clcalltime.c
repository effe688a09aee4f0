/*
 * clcalltime: an LD_PRELOAD shim that times the OpenCL calls a program makes (any platform: it
 * sits in front of the ICD loader) and, at exit, writes per entry point the call count and the
 * total wall time spent inside, plus the process's wall time (the rest is the program's own
 * work). Used to find where an OpenCL implementation spends time under the CTS image suites.
 *
 *   cc -O2 -shared -fPIC bench/clcalltime.c -o clcalltime.so -ldl
 *   CLCALLTIME_OUT=file (appended to) LD_PRELOAD=./clcalltime.so ./test_image_streams 2D ...
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    F_BuildProgram, F_CreateProgramWithSource, F_CreateKernel, F_CreateImage, F_CreateImage2D,
    F_CreateImage3D, F_CreateBuffer, F_CreateSampler, F_EnqueueWriteBuffer, F_EnqueueReadBuffer,
    F_EnqueueWriteImage, F_EnqueueReadImage, F_EnqueueNDRangeKernel, F_EnqueueMapImage,
    F_EnqueueMapBuffer, F_EnqueueUnmapMemObject, F_Finish, F_ReleaseMemObject, F_ReleaseProgram,
    F_ReleaseKernel, F_SetKernelArg, F_EnqueueCopyImage, F_EnqueueFillImage, F_ReleaseSampler,
    F_WaitForEvents, F_EnqueueCopyImageToBuffer, F_EnqueueCopyBufferToImage, F_COUNT
};
static const char *names[F_COUNT] = {
    "clBuildProgram", "clCreateProgramWithSource", "clCreateKernel", "clCreateImage",
    "clCreateImage2D", "clCreateImage3D", "clCreateBuffer", "clCreateSampler",
    "clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clEnqueueWriteImage", "clEnqueueReadImage",
    "clEnqueueNDRangeKernel", "clEnqueueMapImage", "clEnqueueMapBuffer",
    "clEnqueueUnmapMemObject", "clFinish", "clReleaseMemObject", "clReleaseProgram",
    "clReleaseKernel", "clSetKernelArg", "clEnqueueCopyImage", "clEnqueueFillImage",
    "clReleaseSampler", "clWaitForEvents", "clEnqueueCopyImageToBuffer",
    "clEnqueueCopyBufferToImage"};
static double total[F_COUNT];
static long count[F_COUNT];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double t_start;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void note(int f, double t0) {
    double d = now() - t0;
    pthread_mutex_lock(&mu);
    total[f] += d;
    count[f]++;
    pthread_mutex_unlock(&mu);
}

static void *next(int f) {
    void *p = dlsym(RTLD_NEXT, names[f]);
    if (!p) {
        fprintf(stderr, "clcalltime: no %s\n", names[f]);
        abort();
    }
    return p;
}

__attribute__((constructor)) static void start(void) { t_start = now(); }

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("CLCALLTIME_OUT");
    double sum = 0;
    long calls = 0;
    for (int i = 0; i < F_COUNT; i++) sum += total[i], calls += count[i];
    if (!calls) return; /* a child process (system(), a shell) that made no OpenCL call */
    FILE *o = path ? fopen(path, "a") : stderr;
    if (!o) return;
    fprintf(o, "process wall %.3f s, inside OpenCL %.3f s\n", now() - t_start, sum);
    for (int i = 0; i < F_COUNT; i++)
        if (count[i])
            fprintf(o, "%-28s %8ld calls %10.3f s %10.1f us/call\n", names[i], count[i], total[i],
                    1e6 * total[i] / count[i]);
    if (o != stderr) fclose(o);
}

#define WRAP(F, RET, PARAMS, ARGS)                                  \
    CL_API_ENTRY RET CL_API_CALL cl##F PARAMS {                     \
        static RET(CL_API_CALL * real) PARAMS;                      \
        if (!real) real = (RET(CL_API_CALL *) PARAMS)next(F_##F);  \
        double t0 = now();                                          \
        RET ret_ = real ARGS;                                        \
        note(F_##F, t0);                                            \
        return ret_;                                                \
    }

WRAP(BuildProgram, cl_int,
     (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
      void(CL_CALLBACK *cb)(cl_program, void *), void *u),
     (p, n, d, o, cb, u))
WRAP(CreateProgramWithSource, cl_program,
     (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *e), (c, n, s, l, e))
WRAP(CreateKernel, cl_kernel, (cl_program p, const char *n, cl_int *e), (p, n, e))
WRAP(CreateImage, cl_mem,
     (cl_context c, cl_mem_flags f, const cl_image_format *fmt, const cl_image_desc *d, void *h,
      cl_int *e),
     (c, f, fmt, d, h, e))
WRAP(CreateImage2D, cl_mem,
     (cl_context c, cl_mem_flags f, const cl_image_format *fmt, size_t w, size_t h, size_t rp,
      void *p, cl_int *e),
     (c, f, fmt, w, h, rp, p, e))
WRAP(CreateImage3D, cl_mem,
     (cl_context c, cl_mem_flags f, const cl_image_format *fmt, size_t w, size_t h, size_t d,
      size_t rp, size_t sp, void *p, cl_int *e),
     (c, f, fmt, w, h, d, rp, sp, p, e))
WRAP(CreateBuffer, cl_mem, (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e),
     (c, f, s, h, e))
WRAP(CreateSampler, cl_sampler,
     (cl_context c, cl_bool n, cl_addressing_mode a, cl_filter_mode f, cl_int *e), (c, n, a, f, e))
WRAP(EnqueueWriteBuffer, cl_int,
     (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, const void *p, cl_uint n,
      const cl_event *w, cl_event *ev),
     (q, b, bl, o, s, p, n, w, ev))
WRAP(EnqueueReadBuffer, cl_int,
     (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void *p, cl_uint n,
      const cl_event *w, cl_event *ev),
     (q, b, bl, o, s, p, n, w, ev))
WRAP(EnqueueWriteImage, cl_int,
     (cl_command_queue q, cl_mem i, cl_bool bl, const size_t *o, const size_t *r, size_t rp,
      size_t sp, const void *p, cl_uint n, const cl_event *w, cl_event *ev),
     (q, i, bl, o, r, rp, sp, p, n, w, ev))
WRAP(EnqueueReadImage, cl_int,
     (cl_command_queue q, cl_mem i, cl_bool bl, const size_t *o, const size_t *r, size_t rp,
      size_t sp, void *p, cl_uint n, const cl_event *w, cl_event *ev),
     (q, i, bl, o, r, rp, sp, p, n, w, ev))
WRAP(EnqueueNDRangeKernel, cl_int,
     (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
      const size_t *l, cl_uint n, const cl_event *w, cl_event *ev),
     (q, k, d, o, g, l, n, w, ev))
WRAP(EnqueueMapImage, void *,
     (cl_command_queue q, cl_mem i, cl_bool bl, cl_map_flags f, const size_t *o, const size_t *r,
      size_t *rp, size_t *sp, cl_uint n, const cl_event *w, cl_event *ev, cl_int *e),
     (q, i, bl, f, o, r, rp, sp, n, w, ev, e))
WRAP(EnqueueMapBuffer, void *,
     (cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t o, size_t s, cl_uint n,
      const cl_event *w, cl_event *ev, cl_int *e),
     (q, b, bl, f, o, s, n, w, ev, e))
WRAP(EnqueueUnmapMemObject, cl_int,
     (cl_command_queue q, cl_mem m, void *p, cl_uint n, const cl_event *w, cl_event *ev),
     (q, m, p, n, w, ev))
WRAP(Finish, cl_int, (cl_command_queue q), (q))
WRAP(ReleaseMemObject, cl_int, (cl_mem m), (m))
WRAP(ReleaseProgram, cl_int, (cl_program p), (p))
WRAP(ReleaseKernel, cl_int, (cl_kernel k), (k))
WRAP(SetKernelArg, cl_int, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v))
WRAP(EnqueueCopyImage, cl_int,
     (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *dor,
      const size_t *r, cl_uint n, const cl_event *w, cl_event *ev),
     (q, s, d, so, dor, r, n, w, ev))
WRAP(EnqueueFillImage, cl_int,
     (cl_command_queue q, cl_mem i, const void *c, const size_t *o, const size_t *r, cl_uint n,
      const cl_event *w, cl_event *ev),
     (q, i, c, o, r, n, w, ev))
WRAP(ReleaseSampler, cl_int, (cl_sampler s), (s))
WRAP(WaitForEvents, cl_int, (cl_uint n, const cl_event *e), (n, e))
WRAP(EnqueueCopyImageToBuffer, cl_int,
     (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *r, size_t off,
      cl_uint n, const cl_event *w, cl_event *ev),
     (q, s, d, so, r, off, n, w, ev))
WRAP(EnqueueCopyBufferToImage, cl_int,
     (cl_command_queue q, cl_mem s, cl_mem d, size_t off, const size_t *dor, const size_t *r,
      cl_uint n, const cl_event *w, cl_event *ev),
     (q, s, d, off, dor, r, n, w, ev))
