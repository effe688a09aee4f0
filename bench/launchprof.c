/* Host instructions per kernel launch, without a GPU (not a test): N launches of a kernel with 4
 * buffer arguments and 2 scalars on one in-order queue, no events, then clFinish. Run it twice
 * under callgrind against the fake driver (tests/fakecuda) and divide the difference:
 *
 *   cc -O2 -o launchprof bench/launchprof.c -lOpenCL
 *   for n in 1000 3000; do LD_LIBRARY_PATH=<fakecuda dir> OCL_ICD_VENDORS=<dir with cudacl.icd> \
 *     valgrind --tool=callgrind --callgrind-out-file=cg.$n ./launchprof $n; done
 *   # (Ir(3000) - Ir(1000)) / 2000 = instructions per launch
 *
 * Usage: ./launchprof N [event|setarg|read]
 *   event:  each launch asks for an event and releases it
 *   setarg: the scalar argument is set again before each launch (as most applications do)
 *   read:   each launch is followed by a blocking 4-byte read
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, e_); exit(2); } } while (0)

static const char *SRC =
    "__kernel void axpb4(__global const float *a, __global const float *b, __global const float *c,\n"
    "                    __global float *d, const int n, const float s) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) d[i] = a[i] * s + b[i] - c[i];\n"
    "}\n";

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    const char *mode = argc > 2 ? argv[2] : "";
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CK(clGetPlatformIDs(1, &plat, NULL));
    CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CK(err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    CK(err);
    CK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(p, "axpb4", &err);
    CK(err);
    cl_mem m[4];
    for (int i = 0; i < 4; i++) {
        m[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * sizeof(float), NULL, &err);
        CK(err);
        CK(clSetKernelArg(k, i, sizeof m[i], &m[i]));
    }
    int count = 4096;
    float s = 2.0f, got;
    CK(clSetKernelArg(k, 4, sizeof count, &count));
    CK(clSetKernelArg(k, 5, sizeof s, &s));
    size_t g = 4096, l = 128;
    for (int i = 0; i < n; i++) {
        if (!strcmp(mode, "setarg")) CK(clSetKernelArg(k, 5, sizeof s, &s));
        if (!strcmp(mode, "event")) {
            cl_event e;
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e));
            CK(clReleaseEvent(e));
        } else {
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        }
        if (!strcmp(mode, "read")) CK(clEnqueueReadBuffer(q, m[3], CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    }
    CK(clFinish(q));
    for (int i = 0; i < 4; i++) clReleaseMemObject(m[i]);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("launchprof: %d launches (%s)\n", n, *mode ? mode : "plain");
    return 0;
}
