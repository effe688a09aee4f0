// A counting front for the OpenCL ICD loader, for bench/opencv/ocvbench.cpp. OpenCV loads its
// OpenCL runtime with dlopen(OPENCV_OPENCL_RUNTIME) and looks every entry point up with dlsym on
// that handle; pointing OPENCV_OPENCL_RUNTIME at this library (which needs libOpenCL.so.1) makes
// dlsym find the functions defined here first and every other one in libOpenCL.so.1 behind it.
// Counted: kernel launches (an operation that launched none ran on the CPU), program builds and
// their failures (the build log is printed to stderr), and every error the wrapped calls return:
// OpenCV falls back to its CPU code, silently, when an OpenCL call of its OpenCL path fails, so an
// operation that launched kernels may still have been computed on the CPU; the error says why.
// With CLCOUNT_DUMP=<folder>, every program built is written there as <n>.bin (the device binary:
// PTX on NVIDIA, cudacl's container holding PTX) with <n>.txt (its kernel names and options).
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// Read by ocvbench through dlsym(RTLD_DEFAULT, "clcount_stats"):
// launches, failed launches, builds, failed builds, errors of any wrapped call, last error code.
static long stats[6];
static char last_error[160];

long *clcount_stats(void) { return stats; }
// The last failing call, "name=code" (the kernel's name for launches).
const char *clcount_last_error(void) { return last_error; }

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

// A call that returns its error code.
#define WRAP(name, params, args)                                                                   \
  cl_int name params {                                                                             \
    static __typeof__(&name) f;                                                                    \
    if (!f) f = real(#name);                                                                       \
    cl_int e = f args;                                                                             \
    if (e != CL_SUCCESS) failed(#name, NULL, e);                                                   \
    return e;                                                                                      \
  }
// A call that returns an object and its error code through errcode_ret.
#define WRAP_RET(type, name, params, args)                                                         \
  type name params {                                                                               \
    static __typeof__(&name) f;                                                                    \
    if (!f) f = real(#name);                                                                       \
    cl_int e_ = CL_SUCCESS;                                                                        \
    if (!errcode_ret) errcode_ret = &e_;                                                           \
    type r = f args;                                                                               \
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
WRAP_RET(cl_mem, clCreateBuffer, (cl_context c, cl_mem_flags fl, size_t n, void *p, cl_int *errcode_ret),
         (c, fl, n, p, errcode_ret))
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
  if (!f) f = real("clEnqueueNDRangeKernel");
  cl_int err = f(q, k, dim, off, global, local, nw, w, ev);
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
  if (!f) f = real("clBuildProgram");
  cl_int err = f(p, ndev, devs, options, notify, data);
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
