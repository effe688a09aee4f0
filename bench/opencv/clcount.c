// A counting front for the OpenCL ICD loader, for bench/opencv/ocvbench.cpp. OpenCV loads its
// OpenCL runtime with dlopen(OPENCV_OPENCL_RUNTIME) and looks every entry point up with dlsym on
// that handle; pointing OPENCV_OPENCL_RUNTIME at this library (which needs libOpenCL.so.1) makes
// dlsym find the few functions defined here first and every other one in libOpenCL.so.1 behind it.
// What is counted: kernel launches (an operation that launched none ran on the CPU), program builds
// and their failures (the build log of a failure is printed to stderr with the kernel's options).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// Read by ocvbench through dlsym(RTLD_DEFAULT, "clcount_stats").
static long stats[6]; // launches, failed launches, builds, failed builds, last launch error, 0

long *clcount_stats(void) { return stats; }

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

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *global, const size_t *local, cl_uint nwait,
                              const cl_event *wait, cl_event *ev) {
  static cl_int (*f)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                     const size_t *, cl_uint, const cl_event *, cl_event *);
  if (!f) f = real("clEnqueueNDRangeKernel");
  cl_int err = f(q, k, dim, off, global, local, nwait, wait, ev);
  __atomic_add_fetch(&stats[0], 1, __ATOMIC_RELAXED);
  if (err != CL_SUCCESS) {
    __atomic_add_fetch(&stats[1], 1, __ATOMIC_RELAXED);
    stats[4] = err;
    char name[128] = "?";
    cl_int (*info)(cl_kernel, cl_kernel_info, size_t, void *, size_t *) = real("clGetKernelInfo");
    info(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    fprintf(stderr, "clcount: clEnqueueNDRangeKernel(%s) = %d\n", name, err);
  }
  return err;
}

cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs, const char *options,
                      void (*notify)(cl_program, void *), void *data) {
  static cl_int (*f)(cl_program, cl_uint, const cl_device_id *, const char *,
                     void (*)(cl_program, void *), void *);
  if (!f) f = real("clBuildProgram");
  cl_int err = f(p, ndev, devs, options, notify, data);
  __atomic_add_fetch(&stats[2], 1, __ATOMIC_RELAXED);
  if (err != CL_SUCCESS) {
    __atomic_add_fetch(&stats[3], 1, __ATOMIC_RELAXED);
    fprintf(stderr, "clcount: clBuildProgram = %d, options: %s\n", err, options ? options : "");
    cl_device_id dev = devs && ndev ? devs[0] : NULL;
    if (!dev) {
      cl_int (*pinfo)(cl_program, cl_program_info, size_t, void *, size_t *) = real("clGetProgramInfo");
      pinfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
    }
    cl_int (*binfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *) =
        real("clGetProgramBuildInfo");
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
