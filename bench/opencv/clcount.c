// A counting front for the OpenCL ICD loader, for bench/opencv/ocvbench.cpp. OpenCV loads its
// OpenCL runtime with dlopen(OPENCV_OPENCL_RUNTIME) and looks every entry point up with dlsym on
// that handle; pointing OPENCV_OPENCL_RUNTIME at this library (which needs libOpenCL.so.1) makes
// dlsym find the functions defined here first and every other one in libOpenCL.so.1 behind it.
// Counted: kernel launches (an operation that launched none ran on the CPU), program builds and
// their failures (the build log is printed to stderr), and every error the wrapped calls return:
// OpenCV falls back to its CPU code, silently, when an OpenCL call of its OpenCL path fails, so an
// operation that launched kernels may still have been computed on the CPU; the error says why.
// Every wrapped call is also timed (calls and nanoseconds per function): clcount_profile_reset()
// and clcount_profile_print() let ocvbench show where the host time of an operation goes.
// With CLCOUNT_DUMP=<folder>, every program built is written there as <n>.bin (the device binary:
// PTX on NVIDIA, cudacl's container holding PTX) with <n>.txt (its kernel names and options).
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Read by ocvbench through dlsym(RTLD_DEFAULT, "clcount_stats"):
// launches, failed launches, builds, failed builds, errors of any wrapped call, last error code.
static long stats[6];
static char last_error[160];

long *clcount_stats(void) { return stats; }
// The last failing call, "name=code" (the kernel's name for launches).
const char *clcount_last_error(void) { return last_error; }

// Host time per wrapped function.
struct prof {
  const char *name;
  long calls, ns;
};
static struct prof prof[96];
static int nprof;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

static int prof_slot(const char *name) {
  pthread_mutex_lock(&prof_lock);
  int i = 0;
  while (i < nprof && strcmp(prof[i].name, name)) i++;
  if (i == nprof && nprof < 96) prof[nprof++].name = name;
  pthread_mutex_unlock(&prof_lock);
  return i < 96 ? i : 95;
}
static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
static void prof_add(int slot, long t0) {
  __atomic_add_fetch(&prof[slot].calls, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&prof[slot].ns, now_ns() - t0, __ATOMIC_RELAXED);
}
void clcount_profile_reset(void) {
  for (int i = 0; i < nprof; i++) prof[i].calls = prof[i].ns = 0;
}
// One line per function called since the reset, most time first: calls and microseconds per
// `per` (the number of operations), and microseconds per call.
void clcount_profile_print(const char *label, int per) {
  int order[96], n = 0;
  for (int i = 0; i < nprof; i++)
    if (prof[i].calls) order[n++] = i;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (prof[order[b]].ns > prof[order[a]].ns) {
        int t = order[a];
        order[a] = order[b], order[b] = t;
      }
  for (int k = 0; k < n; k++) {
    struct prof *p = &prof[order[k]];
    printf("PROF\t%s\t%s\t%.2f\t%.2f\t%.2f\n", label, p->name, (double)p->calls / per, p->ns / 1e3 / per,
           p->ns / 1e3 / p->calls);
  }
  fflush(stdout);
}

static void *real(const char *name) {
  static void *lib;
  if (!lib) lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
  void *f = lib ? dlsym(lib, name) : NULL;
  if (!f) {
    fprintf(stderr, "clcount: %s not found in libOpenCL.so.1\n", name);
    abort();
  }
  return f;
}

static void dump(cl_program p, const char *options) {
  static int count;
  const char *dir = getenv("CLCOUNT_DUMP");
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

static void failed(const char *name, const char *what, cl_int err) {
  long n = __atomic_add_fetch(&stats[4], 1, __ATOMIC_RELAXED);
  stats[5] = err;
  snprintf(last_error, sizeof last_error, "%s%s%s=%d", name, what ? ":" : "", what ? what : "", err);
  if (n <= 200) fprintf(stderr, "clcount: %s\n", last_error);
}

// A call that returns its error code; with `report`, a code other than CL_SUCCESS is a failure.
#define WRAP_TIMED(name, params, args, report)                                                     \
  cl_int name params {                                                                             \
    static __typeof__(&name) f;                                                                    \
    static int slot = -1;                                                                          \
    if (!f) f = real(#name), slot = prof_slot(#name);                                              \
    long t0 = now_ns();                                                                            \
    cl_int e = f args;                                                                             \
    prof_add(slot, t0);                                                                            \
    if (report && e != CL_SUCCESS) failed(#name, NULL, e);                                         \
    return e;                                                                                      \
  }
#define WRAP(name, params, args) WRAP_TIMED(name, params, args, 1)
// A query, timed only: OpenCV asks for things a platform may not have, and that is no failure.
#define WRAP_QUERY(name, params, args) WRAP_TIMED(name, params, args, 0)
// A call that returns an object and its error code through errcode_ret.
#define WRAP_RET(type, name, params, args)                                                         \
  type name params {                                                                               \
    static __typeof__(&name) f;                                                                    \
    static int slot = -1;                                                                          \
    if (!f) f = real(#name), slot = prof_slot(#name);                                              \
    cl_int e_ = CL_SUCCESS;                                                                        \
    if (!errcode_ret) errcode_ret = &e_;                                                           \
    long t0 = now_ns();                                                                            \
    type r = f args;                                                                               \
    prof_add(slot, t0);                                                                            \
    if (*errcode_ret != CL_SUCCESS) failed(#name, NULL, *errcode_ret);                             \
    return r;                                                                                      \
  }

#define Q cl_command_queue q
#define EV cl_uint nw, const cl_event *w, cl_event *ev
WRAP(clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void *v), (k, i, n, v))
WRAP(clEnqueueReadBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, void *p, EV), (q, m, b, o, n, p, nw, w, ev))
WRAP(clEnqueueWriteBuffer, (Q, cl_mem m, cl_bool b, size_t o, size_t n, const void *p, EV), (q, m, b, o, n, p, nw, w, ev))
WRAP(clEnqueueCopyBuffer, (Q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, EV), (q, s, d, so, dof, n, nw, w, ev))
WRAP(clEnqueueFillBuffer, (Q, cl_mem m, const void *p, size_t ps, size_t o, size_t n, EV), (q, m, p, ps, o, n, nw, w, ev))
WRAP(clEnqueueReadBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp, size_t bsp,
      size_t hrp, size_t hsp, void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev))
WRAP(clEnqueueWriteBufferRect,
     (Q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho, const size_t *r, size_t brp, size_t bsp,
      size_t hrp, size_t hsp, const void *p, EV),
     (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev))
WRAP(clEnqueueCopyBufferRect,
     (Q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof, const size_t *r, size_t srp, size_t ssp,
      size_t drp, size_t dsp, EV),
     (q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, w, ev))
WRAP(clEnqueueCopyBufferToImage, (Q, cl_mem s, cl_mem d, size_t so, const size_t *dor, const size_t *r, EV),
     (q, s, d, so, dor, r, nw, w, ev))
WRAP(clEnqueueCopyImageToBuffer, (Q, cl_mem s, cl_mem d, const size_t *sor, const size_t *r, size_t dof, EV),
     (q, s, d, sor, r, dof, nw, w, ev))
WRAP(clEnqueueUnmapMemObject, (Q, cl_mem m, void *p, EV), (q, m, p, nw, w, ev))
WRAP(clFinish, (Q), (q))
WRAP(clFlush, (Q), (q))
WRAP(clWaitForEvents, (cl_uint n, const cl_event *l), (n, l))
WRAP(clReleaseKernel, (cl_kernel k), (k))
WRAP(clRetainKernel, (cl_kernel k), (k))
WRAP(clReleaseMemObject, (cl_mem m), (m))
WRAP(clRetainMemObject, (cl_mem m), (m))
WRAP(clReleaseEvent, (cl_event ev), (ev))
WRAP(clRetainEvent, (cl_event ev), (ev))
WRAP(clReleaseProgram, (cl_program p), (p))
WRAP(clRetainProgram, (cl_program p), (p))
WRAP(clSetEventCallback, (cl_event ev, cl_int t, void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *d),
     (ev, t, fn, d))
WRAP_QUERY(clGetEventInfo, (cl_event ev, cl_event_info i, size_t n, void *v, size_t *r), (ev, i, n, v, r))
WRAP_QUERY(clGetKernelWorkGroupInfo,
           (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i, size_t n, void *v, size_t *r),
           (k, d, i, n, v, r))
WRAP_QUERY(clGetKernelInfo, (cl_kernel k, cl_kernel_info i, size_t n, void *v, size_t *r), (k, i, n, v, r))
WRAP_QUERY(clGetMemObjectInfo, (cl_mem m, cl_mem_info i, size_t n, void *v, size_t *r), (m, i, n, v, r))
WRAP_QUERY(clGetDeviceInfo, (cl_device_id d, cl_device_info i, size_t n, void *v, size_t *r), (d, i, n, v, r))
WRAP_QUERY(clGetContextInfo, (cl_context c, cl_context_info i, size_t n, void *v, size_t *r), (c, i, n, v, r))
WRAP_QUERY(clGetCommandQueueInfo, (Q, cl_command_queue_info i, size_t n, void *v, size_t *r), (q, i, n, v, r))
WRAP_QUERY(clGetProgramInfo, (cl_program p, cl_program_info i, size_t n, void *v, size_t *r), (p, i, n, v, r))
WRAP_QUERY(clGetProgramBuildInfo,
           (cl_program p, cl_device_id d, cl_program_build_info i, size_t n, void *v, size_t *r),
           (p, d, i, n, v, r))
WRAP_RET(cl_program, clCreateProgramWithSource,
         (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *errcode_ret), (c, n, s, l, errcode_ret))
WRAP_RET(cl_program, clCreateProgramWithBinary,
         (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l, const unsigned char **b, cl_int *st,
          cl_int *errcode_ret),
         (c, n, d, l, b, st, errcode_ret))
// CLCOUNT_TRACE=1 prints each buffer creation (flags, size, host pointer) to stderr.
static cl_mem create_buffer(cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *errcode_ret);
cl_mem clCreateBuffer(cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *errcode_ret) {
  static int trace = -1;
  if (trace < 0) trace = getenv("CLCOUNT_TRACE") != NULL;
  if (trace) fprintf(stderr, "clcount: clCreateBuffer(flags 0x%llx, %zu bytes, host %p)\n", (unsigned long long)fl, n, p);
  return create_buffer(c, fl, n, p, errcode_ret);
}
#define clCreateBuffer create_buffer
static WRAP_RET(cl_mem, clCreateBuffer, (cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *errcode_ret),
                (c, fl, n, p, errcode_ret))
#undef clCreateBuffer
WRAP_RET(cl_mem, clCreateSubBuffer,
         (cl_mem m, cl_mem_flags fl, cl_buffer_create_type t, const void *i, cl_int *errcode_ret),
         (m, fl, t, i, errcode_ret))
WRAP_RET(cl_mem, clCreateImage,
         (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, const cl_image_desc *d, void *p,
          cl_int *errcode_ret),
         (c, fl, fmt, d, p, errcode_ret))
WRAP_RET(cl_mem, clCreateImage2D,
         (cl_context c, cl_mem_flags fl, const cl_image_format *fmt, size_t wd, size_t h, size_t rp, void *p,
          cl_int *errcode_ret),
         (c, fl, fmt, wd, h, rp, p, errcode_ret))
WRAP_RET(cl_kernel, clCreateKernel, (cl_program p, const char *name, cl_int *errcode_ret), (p, name, errcode_ret))
WRAP_RET(void *, clEnqueueMapBuffer,
         (Q, cl_mem m, cl_bool b, cl_map_flags fl, size_t o, size_t n, EV, cl_int *errcode_ret),
         (q, m, b, fl, o, n, nw, w, ev, errcode_ret))

cl_int clEnqueueNDRangeKernel(Q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *global,
                              const size_t *local, EV) {
  static __typeof__(&clEnqueueNDRangeKernel) f;
  static int slot;
  if (!f) f = real("clEnqueueNDRangeKernel"), slot = prof_slot("clEnqueueNDRangeKernel");
  long t0 = now_ns();
  cl_int err = f(q, k, dim, off, global, local, nw, w, ev);
  prof_add(slot, t0);
  __atomic_add_fetch(&stats[0], 1, __ATOMIC_RELAXED);
  if (err != CL_SUCCESS) {
    __atomic_add_fetch(&stats[1], 1, __ATOMIC_RELAXED);
    char name[100] = "?";
    __typeof__(&clGetKernelInfo) info = real("clGetKernelInfo");
    info(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    failed("clEnqueueNDRangeKernel", name, err);
  }
  return err;
}

cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs, const char *options,
                      void (*notify)(cl_program, void *), void *data) {
  static __typeof__(&clBuildProgram) f;
  static int slot;
  if (!f) f = real("clBuildProgram"), slot = prof_slot("clBuildProgram");
  long t0 = now_ns();
  cl_int err = f(p, ndev, devs, options, notify, data);
  prof_add(slot, t0);
  __atomic_add_fetch(&stats[2], 1, __ATOMIC_RELAXED);
  if (err == CL_SUCCESS) dump(p, options);
  if (err != CL_SUCCESS) {
    __atomic_add_fetch(&stats[3], 1, __ATOMIC_RELAXED);
    failed("clBuildProgram", NULL, err);
    fprintf(stderr, "clcount: clBuildProgram options: %s\n", options ? options : "");
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
        fprintf(stderr, "clcount: build log (%zu bytes, first 3000):\n%.3000s\n", n, log);
      }
      free(log);
    }
  }
  return err;
}
