/* Programs, kernels and launches against the fake CUDA driver (tests/fakecuda): the driver
 * records each cuLaunchKernel (grid, block, dynamic shared bytes, the parameter buffer) but
 * runs nothing, so this checks what cudacl hands to CUDA: the argument layout, __local offsets,
 * implicit arguments (global offset, work_dim), chosen local sizes, limits and error codes.
 * Run with LD_LIBRARY_PATH naming the fake libcuda.so.1; argv[1] = "multi" expects
 * FAKECUDA_DEVICES=2 and checks per-device builds. */
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include "common.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include "fakecuda_hooks.h"

static int (*last_launch)(struct fakecuda_launch *);

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

static struct fakecuda_launch launched(void) {
    struct fakecuda_launch l;
    memset(&l, 0, sizeof l);
    clFinish(q);
    if (last_launch) last_launch(&l);
    return l;
}

static cl_program build(const char *src, const char *opts) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err == CL_SUCCESS, "create %d", err);
    err = clBuildProgram(p, 0, NULL, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        CHECK(0, "build %d: %s", err, log);
    }
    return p;
}

#define AT(l, off, type) (*(type *)((l).params + (off)))

static const char *SRC =
    "__kernel void k(__global float *a, __local float *l1, int n, __local int *l2, float4 v, __constant int *c) {\n"
    "  l1[0] = 1; l2[0] = 2; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  a[get_global_id(0) + get_global_offset(1) + get_work_dim()] = l1[0] + l2[0] + n + v.x + c[0]; }\n"
    "__kernel void other(__global int *o) { o[0] = 1; }\n"
    "typedef struct { char c; double d; int i; } S;\n"
    "__kernel void byval(__global double *o, S s, char c) { o[0] = s.d + s.c + s.i + c; }\n";

/* A float8 argument (piglit's vector-conversion): aligned at 16, not 32, and the buffer ends at the
 * last parameter: o@0, v@16 (32 bytes), global offset @48, work_dim @72: 76 bytes (CUDA failed
 * the launch with error 701 when v was at 32 and the buffer 92 bytes). */
static void wide_vector(void) {
    cl_int err;
    cl_program p = build("__kernel void f8(__global int8 *o, float8 v) { *o = convert_int8(v); }\n", NULL);
    cl_kernel k = clCreateKernel(p, "f8", &err);
    CHECK(err == CL_SUCCESS, "create f8 %d", err);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 32, NULL, &err);
    cl_float8 v = {{1, 2, 3, 4, 5, 6, 7, 8}};
    EXPECT(clSetKernelArg(k, 0, sizeof o, &o), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof v, &v), CL_SUCCESS);
    size_t g = 1;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    struct fakecuda_launch r = launched();
    CHECK(!strcmp(r.name, "f8") && r.param_size == 100, "f8: %s, param size %zu", r.name, r.param_size);
    CHECK(AT(r, 16, float) == 1 && AT(r, 44, float) == 8, "v at 16: %g .. %g", AT(r, 16, float), AT(r, 44, float));
    CHECK(AT(r, 72, uint32_t) == 1, "work_dim %u", AT(r, 72, uint32_t));
    clFinish(q);
    clReleaseMemObject(o);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

static void layout(void) {
    cl_int err;
    cl_program p = build(SRC, NULL);
    cl_kernel k = clCreateKernel(p, "k", &err);
    CHECK(err == CL_SUCCESS, "create kernel %d", err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_ONLY, 64, NULL, &err);
    int n = 77;
    cl_float4 v = {{1.5f, 2.5f, 3.5f, 4.5f}};
    size_t g[2] = {64, 6}, l[2] = {16, 2}, off[2] = {3, 9};
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, off, g, l, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    EXPECT(clSetKernelArg(k, 0, sizeof a, &a), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, 100, NULL), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 2, sizeof n, &n), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 3, 40, NULL), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 4, sizeof v, &v), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, off, g, l, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    EXPECT(clSetKernelArg(k, 5, sizeof c, &c), CL_SUCCESS);
    cl_ulong lmem = 0;
    EXPECT(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL), CL_SUCCESS);
    CHECK(lmem == 128 + 40, "local mem size %llu", (unsigned long long)lmem);
    cl_event ev;
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, off, g, l, 0, NULL, &ev), CL_SUCCESS);
    struct fakecuda_launch r = launched();
    CHECK(!strcmp(r.name, "k"), "name %s", r.name);
    CHECK(r.grid[0] == 4 && r.grid[1] == 3 && r.grid[2] == 1, "grid %u %u %u", r.grid[0], r.grid[1], r.grid[2]);
    CHECK(r.block[0] == 16 && r.block[1] == 2 && r.block[2] == 1, "block %u %u %u", r.block[0], r.block[1], r.block[2]);
    /* __local: l1 at 0 (100 bytes), l2 at the next 128-byte boundary (the largest OpenCL type
       alignment), 168 in all. */
    CHECK(r.shared == 168, "dynamic shared %u", r.shared);
    /* Layout: a@0 (8), l1@8 (u32 offset), n@12, l2@16 (u32), v@32 (16), c@48 (8), then the
     * implicit global offset (3 x u64 @56), work_dim (u32 @80) and groups (6 x u32 @84): 108
     * bytes, unpadded (the driver refuses a padded CU_LAUNCH_PARAM_BUFFER_SIZE). */
    CHECK(r.param_size == 108, "param size %zu", r.param_size);
    CHECK(AT(r, 84, uint32_t) == 0 && AT(r, 88, uint32_t) == 0 && AT(r, 92, uint32_t) == 0, "first groups");
    CHECK(AT(r, 96, uint32_t) == 4 && AT(r, 100, uint32_t) == 3 && AT(r, 104, uint32_t) == 1, "group counts %u %u %u",
          AT(r, 96, uint32_t), AT(r, 100, uint32_t), AT(r, 104, uint32_t));
    CHECK(AT(r, 0, uint64_t) != 0, "buffer a's device pointer %llx", (unsigned long long)AT(r, 0, uint64_t));
    CHECK(AT(r, 8, uint32_t) == 0, "l1 offset %u", AT(r, 8, uint32_t));
    CHECK(AT(r, 12, int) == 77, "n %d", AT(r, 12, int));
    CHECK(AT(r, 16, uint32_t) == 128, "l2 offset %u", AT(r, 16, uint32_t));
    CHECK(AT(r, 32, float) == 1.5f && AT(r, 44, float) == 4.5f, "v %g %g", AT(r, 32, float), AT(r, 44, float));
    CHECK(AT(r, 48, uint64_t) != 0 && AT(r, 48, uint64_t) != AT(r, 0, uint64_t), "c's device pointer");
    CHECK(AT(r, 56, uint64_t) == 3 && AT(r, 64, uint64_t) == 9 && AT(r, 72, uint64_t) == 0, "global offset %llu %llu %llu",
          (unsigned long long)AT(r, 56, uint64_t), (unsigned long long)AT(r, 64, uint64_t), (unsigned long long)AT(r, 72, uint64_t));
    CHECK(AT(r, 80, uint32_t) == 2, "work_dim %u", AT(r, 80, uint32_t));
    cl_int st = 0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st == CL_COMPLETE, "status %d", st);
    clReleaseEvent(ev);

    /* Arguments set after an enqueue do not change it; a NULL buffer is a 0 pointer. */
    cl_mem nullmem = NULL;
    EXPECT(clSetKernelArg(k, 0, sizeof nullmem, &nullmem), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, 16, NULL), CL_SUCCESS);
    size_t g1 = 1 << 20;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g1, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(AT(r, 0, uint64_t) == 0, "NULL buffer pointer %llx", (unsigned long long)AT(r, 0, uint64_t));
    CHECK(AT(r, 16, uint32_t) == 128 && r.shared == 168, "l2 offset %u, shared %u", AT(r, 16, uint32_t), r.shared);
    CHECK(AT(r, 56, uint64_t) == 0 && AT(r, 64, uint64_t) == 0 && AT(r, 80, uint32_t) == 1, "offsets reset, work_dim 1");
    /* Runtime-chosen local size: divides the global size, about 256 work-items. */
    CHECK(r.block[0] == 256 && r.grid[0] == 4096, "chosen 1-D: block %u grid %u", r.block[0], r.grid[0]);
    size_t odd = 1000;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &odd, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.block[0] * r.grid[0] == 1000 && r.block[0] >= 8, "chosen for 1000: block %u grid %u", r.block[0], r.grid[0]);
    size_t prime = 1009;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &prime, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.block[0] * r.grid[0] == 1009, "chosen for 1009: block %u grid %u", r.block[0], r.grid[0]);
    size_t g2[2] = {1024, 1024};
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, NULL, g2, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.block[0] * r.block[1] >= 64 && r.block[0] * r.block[1] <= 1024 && r.block[0] * r.grid[0] == 1024 && r.block[1] * r.grid[1] == 1024,
          "chosen 2-D: block %u x %u", r.block[0], r.block[1]);
    size_t g3[3] = {64, 8, 8}, o3[3] = {1, 2, 3};
    EXPECT(clEnqueueNDRangeKernel(q, k, 3, o3, g3, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.block[0] * r.grid[0] == 64 && r.block[1] * r.grid[1] == 8 && r.block[2] * r.grid[2] == 8, "chosen 3-D");
    CHECK(AT(r, 56, uint64_t) == 1 && AT(r, 64, uint64_t) == 2 && AT(r, 72, uint64_t) == 3 && AT(r, 80, uint32_t) == 3, "3-D offsets");

    /* Beyond CUDA's grid limit in y (65535 groups) with a given local size: three launches of
     * 65535, 65535 and 2 groups, the last told it starts at group 131070 of 131072. */
    size_t gy[2] = {1, 1 << 17}, ly[2] = {1, 1};
    unsigned long long before = launched().count;
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, NULL, gy, ly, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.count - before == 3 && r.grid[1] == 2, "pieces: %llu, last y grid %u", r.count - before, r.grid[1]);
    CHECK(AT(r, 84, uint32_t) == 0 && AT(r, 88, uint32_t) == 131070 && AT(r, 92, uint32_t) == 0, "first group of the last piece");
    CHECK(AT(r, 96, uint32_t) == 1 && AT(r, 100, uint32_t) == 131072 && AT(r, 104, uint32_t) == 1, "groups of the NDRange");
    /* With the local size left to the runtime, it fits in one launch. */
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, NULL, gy, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.grid[1] <= 65535 && r.grid[1] * r.block[1] == (1u << 17), "y grid %u block %u", r.grid[1], r.block[1]);
    /* Spec errors. */
    size_t lbig = 2048, l0 = 0, gz = 0, g64 = 64, huge = SIZE_MAX - 5;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, &lbig, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    size_t g4k = 4096, l4k = 2048;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g4k, &l4k, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, &l0, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    /* OpenCL 2.1+ (cudacl reports 3.0): an empty range is a command that runs nothing. */
    cl_event ez = NULL;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &gz, NULL, 0, NULL, &ez), CL_SUCCESS);
    if (ez) {
        EXPECT(clWaitForEvents(1, &ez), CL_SUCCESS);
        clReleaseEvent(ez);
    }
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_SUCCESS); /* NULL: empty too */
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, &huge, &g64, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    size_t gi[3] = {1, 1, 128}, li[3] = {1, 1, 128};
    EXPECT(clEnqueueNDRangeKernel(q, k, 3, NULL, gi, li, 0, NULL, NULL), CL_INVALID_WORK_ITEM_SIZE);
    cl_event nullev = NULL;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, NULL, 1, &nullev, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* __local above 48 KiB (opt-in) and beyond the device's shared memory. */
    cl_ulong devlocal = 0;
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof devlocal, &devlocal, NULL);
    EXPECT(clSetKernelArg(k, 1, 100 * 1024, NULL), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(r.shared == 100 * 1024 + 40, "shared above 48 KiB %u", r.shared);
    EXPECT(clSetKernelArg(k, 1, (size_t)devlocal, NULL), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, NULL, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    EXPECT(clSetKernelArg(k, 1, 16, NULL), CL_SUCCESS);
    /* clEnqueueTask = 1 x 1 x 1. */
    cl_event tev;
    EXPECT(clEnqueueTask(q, k, 0, NULL, &tev), CL_SUCCESS);
    r = launched();
    CHECK(r.grid[0] == 1 && r.block[0] == 1 && r.grid[1] == 1 && r.block[1] == 1, "task %u %u", r.grid[0], r.block[0]);
    cl_command_type ct = 0;
    clGetEventInfo(tev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL);
    CHECK(ct == CL_COMMAND_TASK, "task command type %x", ct);
    clReleaseEvent(tev);

    /* Work-group info from the function attributes. */
    size_t wg = 0, mult = 0;
    cl_ulong priv = 99;
    EXPECT(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL), CL_SUCCESS);
    CHECK(wg == 1024, "work-group size %zu", wg);
    EXPECT(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL), CL_SUCCESS);
    CHECK(mult == 32, "multiple %zu", mult);
    EXPECT(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL), CL_SUCCESS);
    CHECK(priv == 0, "private %llu", (unsigned long long)priv);
    EXPECT(clGetKernelWorkGroupInfo(k, dev, 0xdead, sizeof priv, &priv, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelWorkGroupInfo(k, (cl_device_id)ctx, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL), CL_INVALID_DEVICE);
    /* Kernel info. */
    cl_uint na = 0;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof na, &na, NULL), CL_SUCCESS);
    CHECK(na == 6, "num args %u", na);
    cl_context kc = NULL;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof kc, &kc, NULL), CL_SUCCESS);
    CHECK(kc == ctx, "kernel context");
    cl_uint rc = 0;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof rc, &rc, NULL), CL_SUCCESS);
    CHECK(rc == 1, "refcount %u", rc);
    char attrs[8] = {1};
    EXPECT(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, NULL), CL_SUCCESS);
    CHECK(attrs[0] == 0, "no attributes");
    EXPECT(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof attrs, attrs, NULL), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    {
        /* Coarse-grain SVM: a NULL SVM pointer for the __global argument; an unknown exec info
         * name. Without SVM both are refused. */
        cl_device_svm_capabilities svm = 0;
        clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
        EXPECT(clSetKernelArgSVMPointer(k, 0, NULL), svm ? CL_SUCCESS : CL_INVALID_OPERATION);
        EXPECT(clSetKernelExecInfo(k, 0, 0, NULL), svm ? CL_INVALID_VALUE : CL_INVALID_OPERATION);
        if (svm) {
            EXPECT(clSetKernelArgSVMPointer(k, 2, NULL), CL_INVALID_ARG_INDEX); /* int n */
            EXPECT(clSetKernelArgSVMPointer(k, 6, NULL), CL_INVALID_ARG_INDEX);
            EXPECT(clSetKernelArgSVMPointer(k, 0, (void *)0x1000), CL_INVALID_ARG_VALUE); /* not SVM */
        }
    }
    EXPECT(clSetKernelArgSVMPointer(NULL, 0, NULL), CL_INVALID_KERNEL);

    /* A launch deferred behind a user event uses the arguments as they were at enqueue time,
     * and runs even if the kernel is released before the event is set. */
    {
        cl_event gate = clCreateUserEvent(ctx, &err);
        cl_kernel kd = clCloneKernel(k, &err);
        int n1 = 1111, n2 = 2222;
        EXPECT(clSetKernelArg(kd, 2, sizeof n1, &n1), CL_SUCCESS);
        cl_event dev_ev = NULL;
        EXPECT(clEnqueueNDRangeKernel(q, kd, 1, NULL, &g64, NULL, 1, &gate, &dev_ev), CL_SUCCESS);
        EXPECT(clSetKernelArg(kd, 2, sizeof n2, &n2), CL_SUCCESS);
        EXPECT(clSetKernelArg(kd, 1, 4096, NULL), CL_SUCCESS);
        EXPECT(clReleaseKernel(kd), CL_SUCCESS);
        cl_int st2 = 0;
        clGetEventInfo(dev_ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st2, &st2, NULL);
        CHECK(st2 == CL_QUEUED, "deferred launch status %d", st2);
        EXPECT(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        EXPECT(clWaitForEvents(1, &dev_ev), CL_SUCCESS);
        r = launched();
        CHECK(AT(r, 12, int) == 1111 && r.shared == 168, "deferred launch saw n=%d shared=%u", AT(r, 12, int), r.shared);
        clReleaseEvent(dev_ev);
        clReleaseEvent(gate);
        /* A failed wait list: the launch does not run, its event reports the failure. */
        gate = clCreateUserEvent(ctx, &err);
        unsigned long long before = launched().count;
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, NULL, 1, &gate, &dev_ev), CL_SUCCESS);
        EXPECT(clSetUserEventStatus(gate, -77), CL_SUCCESS);
        clGetEventInfo(dev_ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st2, &st2, NULL);
        CHECK(st2 < 0, "launch after a failed event: status %d", st2);
        CHECK(launched().count == before, "a launch whose wait list failed did not run");
        clReleaseEvent(dev_ev);
        clReleaseEvent(gate);
    }
    /* Profiling timestamps of a launch. */
    {
        cl_command_queue qp = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
        cl_event pe;
        EXPECT(clEnqueueNDRangeKernel(qp, k, 1, NULL, &g64, NULL, 0, NULL, &pe), CL_SUCCESS);
        EXPECT(clWaitForEvents(1, &pe), CL_SUCCESS);
        cl_ulong t[4] = {0};
        clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_QUEUED, 8, &t[0], NULL);
        clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_SUBMIT, 8, &t[1], NULL);
        clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_START, 8, &t[2], NULL);
        clGetEventProfilingInfo(pe, CL_PROFILING_COMMAND_END, 8, &t[3], NULL);
        CHECK(t[0] > 0 && t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3], "profile %llu %llu %llu %llu",
              (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2], (unsigned long long)t[3]);
        clReleaseEvent(pe);
        clReleaseCommandQueue(qp);
    }

    /* Clone: same function, arguments copied. */
    cl_kernel k2 = clCloneKernel(k, &err);
    CHECK(err == CL_SUCCESS && k2, "clone %d", err);
    EXPECT(clEnqueueNDRangeKernel(q, k2, 1, NULL, &g64, NULL, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(!strcmp(r.name, "k") && AT(r, 12, int) == 77, "clone launch %s %d", r.name, AT(r, 12, int));

    /* The program cannot be rebuilt while kernels are attached; released, it lives on. */
    EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(clReleaseProgram(p), CL_SUCCESS);
    cl_program kp = NULL;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof kp, &kp, NULL), CL_SUCCESS);
    cl_uint prc = 0;
    EXPECT(clGetProgramInfo(kp, CL_PROGRAM_REFERENCE_COUNT, sizeof prc, &prc, NULL), CL_SUCCESS);
    CHECK(prc == 2, "program refcount held by two kernels %u", prc);
    EXPECT(clReleaseKernel(k2), CL_SUCCESS);
    EXPECT(clReleaseKernel(k), CL_SUCCESS);
    EXPECT(clReleaseProgram(kp), CL_INVALID_PROGRAM);

    /* Struct by value: bytes as the host lays them out. */
    p = build(SRC, "-cl-kernel-arg-info");
    cl_kernel kb = clCreateKernel(p, "byval", &err);
    struct { cl_char c; cl_double d; cl_int i; } s = {-3, 2.5, 123456};
    cl_char ch = 9;
    EXPECT(clSetKernelArg(kb, 0, sizeof a, &a), CL_SUCCESS);
    EXPECT(clSetKernelArg(kb, 1, sizeof s, &s), CL_SUCCESS);
    EXPECT(clSetKernelArg(kb, 1, 12, &s), CL_INVALID_ARG_SIZE);
    EXPECT(clSetKernelArg(kb, 2, sizeof ch, &ch), CL_SUCCESS);
    EXPECT(clEnqueueTask(q, kb, 0, NULL, NULL), CL_SUCCESS);
    r = launched();
    CHECK(AT(r, 8, cl_char) == -3 && AT(r, 16, double) == 2.5 && AT(r, 24, int) == 123456 && AT(r, 32, cl_char) == 9,
          "struct bytes %d %g %d %d", AT(r, 8, cl_char), AT(r, 16, double), AT(r, 24, int), AT(r, 32, cl_char));
    char nm[16] = {0};
    EXPECT(clGetKernelArgInfo(kb, 1, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL), CL_SUCCESS);
    CHECK(!strcmp(nm, "s"), "arg name %s", nm);
    cl_kernel_arg_address_qualifier aq = 0;
    EXPECT(clGetKernelArgInfo(kb, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL), CL_SUCCESS);
    CHECK(aq == CL_KERNEL_ARG_ADDRESS_GLOBAL, "address qualifier %x", (unsigned)aq);
    EXPECT(clGetKernelArgInfo(kb, 3, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL), CL_INVALID_ARG_INDEX);
    clReleaseKernel(kb);

    /* Kernels in program, names. */
    char names[64] = {0};
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL), CL_SUCCESS);
    CHECK(strstr(names, "k") && strstr(names, "other") && strstr(names, "byval"), "names %s", names);
    cl_kernel ks[3];
    cl_uint nk = 0;
    EXPECT(clCreateKernelsInProgram(p, 3, ks, &nk), CL_SUCCESS);
    CHECK(nk == 3, "kernels %u", nk);
    for (cl_uint i = 0; i < nk; i++) clReleaseKernel(ks[i]);
    clReleaseProgram(p);
    clReleaseMemObject(a);
    clReleaseMemObject(c);
}

static void CL_CALLBACK done(cl_program p, void *data) { (void)p; (*(int *)data)++; }

static void programs(void) {
    cl_int err;
    const char *src = "__kernel void f(__global int *o) { o[get_global_id(0)] = 1; }";
    size_t len = strlen(src);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
    EXPECT(err, CL_SUCCESS);
    char text[128] = {0};
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof text, text, NULL), CL_SUCCESS);
    CHECK(!strcmp(text, src), "source %s", text);
    cl_build_status bs = 1;
    EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL), CL_SUCCESS);
    CHECK(bs == CL_BUILD_NONE, "status before build %d", bs);
    EXPECT((clCreateKernel(p, "f", &err), err), CL_INVALID_PROGRAM_EXECUTABLE);
    size_t bsz = 99;
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL), CL_SUCCESS);
    CHECK(bsz == 0, "binary size before build %zu", bsz);
    int called = 0;
    EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, &called), CL_INVALID_VALUE);
    EXPECT(clBuildProgram(p, 1, &dev, "-cl-fast-relaxed-math", done, &called), CL_SUCCESS);
    CHECK(called == 1, "callback %d", called);
    char opts[64] = {0};
    EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof opts, opts, NULL), CL_SUCCESS);
    CHECK(!strcmp(opts, "-cl-fast-relaxed-math"), "options %s", opts);
    char log[4096] = {0};
    EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL), CL_SUCCESS);
    CHECK(strstr(log, "fakecuda: module loaded") != NULL, "JIT log in the build log: %s", log);
    /* Rebuilding (no kernels attached) is fine. */
    EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    /* Binaries round trip. */
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL), CL_SUCCESS);
    CHECK(bsz > 0, "binary size %zu", bsz);
    unsigned char *bin = malloc(bsz);
    size_t ret = 0;
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, &bin, NULL), CL_INVALID_VALUE);
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, &ret), CL_SUCCESS);
    CHECK(ret == sizeof bin, "binaries size_ret %zu", ret);
    const unsigned char *cb = bin;
    cl_int bst = 1;
    cl_program pb = clCreateProgramWithBinary(ctx, 1, &dev, &bsz, &cb, &bst, &err);
    CHECK(err == CL_SUCCESS && bst == CL_SUCCESS, "from binary %d %d", err, bst);
    cl_program_binary_type bt = 0;
    EXPECT(clGetProgramBuildInfo(pb, dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL), CL_SUCCESS);
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %u", (unsigned)bt);
    /* An executable binary is usable before clBuildProgram (piglit's clCreateProgramWithBinary). */
    cl_kernel kf = clCreateKernel(pb, "f", &err);
    EXPECT(err, CL_SUCCESS);
    clReleaseKernel(kf);
    EXPECT(clBuildProgram(pb, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    kf = clCreateKernel(pb, "f", &err);
    EXPECT(err, CL_SUCCESS);
    clReleaseKernel(kf);
    clReleaseProgram(pb);
    EXPECT((clCreateProgramWithBinary(ctx, 1, &dev, NULL, &cb, &bst, &err), err), CL_INVALID_VALUE);
    size_t zero = 0;
    EXPECT((clCreateProgramWithBinary(ctx, 1, &dev, &zero, &cb, &bst, &err), err), CL_INVALID_VALUE);
    EXPECT((clCreateProgramWithBinary(ctx, 1, (cl_device_id *)&ctx, &bsz, &cb, &bst, &err), err), CL_INVALID_DEVICE);
    bin[bsz / 3] ^= 0xff;
    memcpy(bin, "cudacl-binary-v0", bsz > 16 ? 16 : bsz);
    bst = 1;
    EXPECT((clCreateProgramWithBinary(ctx, 1, &dev, &bsz, &cb, &bst, &err), err), CL_INVALID_BINARY);
    CHECK(bst == CL_INVALID_BINARY, "status %d", bst);
    free(bin);
    EXPECT(clSetProgramReleaseCallback(p, done, NULL), CL_INVALID_OPERATION);
    /* A source program has no specialization constants (no IL support: nothing has). */
    EXPECT(clSetProgramSpecializationConstant(p, 0, 4, &zero), device_has_il(dev) ? CL_INVALID_PROGRAM : CL_INVALID_OPERATION);
    EXPECT(clSetProgramReleaseCallback(NULL, done, NULL), CL_INVALID_PROGRAM);
    clReleaseProgram(p);

    /* Build failure: status, log, no kernels. */
    const char *bad = "__kernel void f(__global int *o) {\n  o[0] = missing_thing;\n}\n";
    p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    called = 0;
    EXPECT(clBuildProgram(p, 0, NULL, NULL, done, &called), CL_BUILD_PROGRAM_FAILURE);
    CHECK(called == 1, "callback on failure %d", called);
    EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL), CL_SUCCESS);
    CHECK(bs == CL_BUILD_ERROR, "status %d", bs);
    EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL), CL_SUCCESS);
    CHECK(strstr(log, "missing_thing") && strstr(log, ":2:"), "log %s", log);
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof log, log, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT(clBuildProgram(p, 0, NULL, "-cl-std=CL9.9", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    clReleaseProgram(p);

    /* Compile with an embedded header, a library, link. */
    const char *hdr = "int helper(int x);\n#define K 5\n";
    const char *lsrc = "#include <my/helper.h>\nint helper(int x) { return x * K; }\n";
    const char *msrc = "#include <my/helper.h>\n__kernel void use(__global int *o) { o[0] = helper(3); }\n";
    cl_program h = clCreateProgramWithSource(ctx, 1, &hdr, NULL, &err);
    cl_program pl = clCreateProgramWithSource(ctx, 1, &lsrc, NULL, &err);
    cl_program pm = clCreateProgramWithSource(ctx, 1, &msrc, NULL, &err);
    const char *hn = "my/helper.h";
    EXPECT(clCompileProgram(pl, 0, NULL, NULL, 1, &h, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clCompileProgram(pl, 0, NULL, NULL, 1, &h, &hn, NULL, NULL), CL_SUCCESS);
    EXPECT(clCompileProgram(pm, 0, NULL, NULL, 1, &h, &hn, NULL, NULL), CL_SUCCESS);
    EXPECT(clGetProgramBuildInfo(pm, dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL), CL_SUCCESS);
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "object type %u", (unsigned)bt);
    EXPECT(clCompileProgram(pm, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_COMPILE_PROGRAM_FAILURE);
    EXPECT(clCompileProgram(pm, 0, NULL, NULL, 1, &h, &hn, NULL, NULL), CL_SUCCESS);
    /* A compiled object's binary round-trips too. */
    EXPECT(clGetProgramInfo(pl, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL), CL_SUCCESS);
    bin = malloc(bsz);
    EXPECT(clGetProgramInfo(pl, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL), CL_SUCCESS);
    cb = bin;
    cl_program plb = clCreateProgramWithBinary(ctx, 1, &dev, &bsz, &cb, &bst, &err);
    CHECK(err == CL_SUCCESS, "object from binary %d", err);
    free(bin);
    cl_program lib = clLinkProgram(ctx, 0, NULL, "-create-library -enable-link-options", 1, &plb, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS && lib, "library %d", err);
    EXPECT(clGetProgramBuildInfo(lib, dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL), CL_SUCCESS);
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_LIBRARY, "library type %u", (unsigned)bt);
    EXPECT((clLinkProgram(ctx, 0, NULL, "-enable-link-options", 1, &pl, NULL, NULL, &err), err), CL_INVALID_LINKER_OPTIONS);
    EXPECT((clLinkProgram(ctx, 0, NULL, NULL, 0, NULL, NULL, NULL, &err), err), CL_INVALID_VALUE);
    EXPECT((clLinkProgram(ctx, 0, NULL, NULL, 1, &h, NULL, NULL, &err), err), CL_INVALID_OPERATION);
    cl_program ins[2] = {pm, lib};
    called = 0;
    cl_program exe = clLinkProgram(ctx, 0, NULL, NULL, 2, ins, done, &called, &err);
    CHECK(err == CL_SUCCESS && exe && called == 1, "link %d, callback %d", err, called);
    cl_kernel ku = clCreateKernel(exe, "use", &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clBuildProgram(exe, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    clReleaseKernel(ku);
    clReleaseProgram(exe);
    cl_program lonely = clLinkProgram(ctx, 0, NULL, NULL, 1, &pm, NULL, NULL, &err);
    CHECK(err == CL_LINK_PROGRAM_FAILURE && lonely, "unresolved link %d", err);
    if (lonely) {
        EXPECT(clGetProgramBuildInfo(lonely, dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL), CL_SUCCESS);
        CHECK(bs == CL_BUILD_ERROR, "failed link status %d", bs);
        clReleaseProgram(lonely);
    }
    EXPECT(clCompileProgram(lib, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    clReleaseProgram(lib); clReleaseProgram(plb); clReleaseProgram(h); clReleaseProgram(pl); clReleaseProgram(pm);
    EXPECT((clCreateProgramWithBuiltInKernels(ctx, 1, &dev, "x", &err), err), CL_INVALID_VALUE);
    /* Kernel objects made, released and made again (OpenCV's way) see the program as built
     * now: a rebuild with other options changes the kernel (cudacl keeps clCreateKernel's work
     * per name until the program is built again). */
    static const char *two =
        "#if V == 1\n__kernel void k(__global int *a) { a[0] = 1; }\n"
        "#else\n__kernel void k(__global int *a, int b, int c) { a[0] = b + c; }\n#endif\n";
    cl_program pr = clCreateProgramWithSource(ctx, 1, &two, NULL, &err);
    for (int round = 0; round < 4; round++) {
        int v = 1 + round % 2;
        EXPECT(clBuildProgram(pr, 1, &dev, v == 1 ? "-DV=1" : "-DV=2", NULL, NULL), CL_SUCCESS);
        for (int again = 0; again < 3; again++) {
            cl_kernel kr = clCreateKernel(pr, "k", &err);
            cl_uint nargs = 0;
            if (kr) clGetKernelInfo(kr, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
            CHECK(kr && nargs == (v == 1 ? 1u : 3u), "rebuild %d, kernel %d: %u arguments (want %d)", round, again,
                  nargs, v == 1 ? 1 : 3);
            if (kr) clReleaseKernel(kr);
        }
    }
    clReleaseProgram(pr);
}

/* clSetKernelArg on one kernel from several threads: not required to be meaningful, must not crash. */
static cl_kernel shared_k;
static void *hammer(void *arg) {
    int v = (int)(intptr_t)arg;
    size_t g = 64;
    for (int i = 0; i < 2000; i++) {
        clSetKernelArg(shared_k, 2, sizeof v, &v);
        clSetKernelArg(shared_k, 1, 16 + (size_t)(i % 7) * 16, NULL);
        if (i % 50 == 0) clEnqueueNDRangeKernel(q, shared_k, 1, NULL, &g, NULL, 0, NULL, NULL);
    }
    return NULL;
}

/* Programs built concurrently from several threads (the compiler must be thread safe). */
static void *builder(void *arg) {
    char src[256];
    snprintf(src, sizeof src, "__kernel void t%d(__global int *o) { o[get_global_id(0)] = %d * (int)get_global_id(0); }\n", (int)(intptr_t)arg, (int)(intptr_t)arg);
    const char *s = src;
    cl_int err;
    intptr_t ok = 1;
    for (int i = 0; i < 3; i++) {
        cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
        if (clBuildProgram(p, 0, NULL, i == 1 ? "-cl-mad-enable" : NULL, NULL, NULL) != CL_SUCCESS) ok = 0;
        clReleaseProgram(p);
    }
    return (void *)ok;
}

static void threads(void) {
    pthread_t b[4];
    for (int i = 0; i < 4; i++) pthread_create(&b[i], NULL, builder, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *ok = NULL;
        pthread_join(b[i], &ok);
        CHECK(ok == (void *)1, "concurrent build in thread %d", i);
    }
    cl_int err;
    cl_program p = build(SRC, NULL);
    shared_k = clCreateKernel(p, "k", &err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    int n = 1;
    cl_float4 v = {{0}};
    clSetKernelArg(shared_k, 0, sizeof a, &a);
    clSetKernelArg(shared_k, 1, 16, NULL);
    clSetKernelArg(shared_k, 2, sizeof n, &n);
    clSetKernelArg(shared_k, 3, 16, NULL);
    clSetKernelArg(shared_k, 4, sizeof v, &v);
    clSetKernelArg(shared_k, 5, sizeof a, &a);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, hammer, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    EXPECT(clFinish(q), CL_SUCCESS);
    CHECK(1, "threads done");
    clReleaseKernel(shared_k);
    clReleaseMemObject(a);
    clReleaseProgram(p);
}

/* Two devices: one build each, per-device status/log/binary, launches on either. */
static void multi(cl_platform_id plat) {
    cl_device_id ds[2];
    cl_uint nd = 0;
    EXPECT(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 2, ds, &nd), CL_SUCCESS);
    CHECK(nd == 2, "devices %u", nd);
    if (nd != 2) return;
    cl_int err;
    cl_context c2 = clCreateContext(NULL, 2, ds, NULL, NULL, &err);
    cl_command_queue q1 = clCreateCommandQueue(c2, ds[1], 0, &err);
    cl_program p = clCreateProgramWithSource(c2, 1, &SRC, NULL, &err);
    EXPECT(clBuildProgram(p, 1, &ds[0], NULL, NULL, NULL), CL_SUCCESS);
    cl_build_status b0 = 1, b1 = 1;
    clGetProgramBuildInfo(p, ds[0], CL_PROGRAM_BUILD_STATUS, sizeof b0, &b0, NULL);
    clGetProgramBuildInfo(p, ds[1], CL_PROGRAM_BUILD_STATUS, sizeof b1, &b1, NULL);
    CHECK(b0 == CL_BUILD_SUCCESS && b1 == CL_BUILD_NONE, "per-device status %d %d", b0, b1);
    cl_kernel k = clCreateKernel(p, "other", &err);
    cl_mem m = clCreateBuffer(c2, CL_MEM_READ_WRITE, 64, NULL, &err);
    clSetKernelArg(k, 0, sizeof m, &m);
    size_t g = 1;
    EXPECT(clEnqueueNDRangeKernel(q1, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    clReleaseKernel(k);
    EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    size_t sizes[2] = {0, 0};
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sizes, sizes, NULL), CL_SUCCESS);
    CHECK(sizes[0] > 0 && sizes[1] > 0, "binary sizes %zu %zu", sizes[0], sizes[1]);
    cl_uint ndev = 0;
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL), CL_SUCCESS);
    CHECK(ndev == 2, "program devices %u", ndev);
    k = clCreateKernel(p, "other", &err);
    clSetKernelArg(k, 0, sizeof m, &m);
    EXPECT(clEnqueueNDRangeKernel(q1, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q1), CL_SUCCESS);
    EXPECT(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof g, &g, NULL), CL_INVALID_DEVICE);
    EXPECT(clGetKernelWorkGroupInfo(k, ds[1], CL_KERNEL_WORK_GROUP_SIZE, sizeof g, &g, NULL), CL_SUCCESS);
    /* A queue of another context. */
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_CONTEXT);
    clReleaseKernel(k);
    clReleaseMemObject(m);
    clReleaseProgram(p);
    clReleaseCommandQueue(q1);
    clReleaseContext(c2);
}

/* A kernel fault (the fake driver faults kernels named fakecuda_fault*, with CUDA's sticky
 * error): the failing command's event gets a negative status, later commands in that context
 * fail, the process lives, and once the application has released the context's objects a new
 * context works. Releases the global context and queue. */
static char notice[1024];

static void CL_CALLBACK note_error(const char *msg, const void *info, size_t cb, void *user) {
    (void)info, (void)cb, (void)user;
    snprintf(notice, sizeof notice, "%s", msg);
}

/* FAKECUDA_FAULT_POISONS=1: after the fault no CUDA context can be had in this process (NVIDIA's
 * driver 580): clCreateContext and clCreateContextFromType answer CL_OUT_OF_RESOURCES, pfn_notify
 * names the driver's sticky error and the restart, also once the faulted context is released; no
 * hang, the process lives. Releases the global context and queue (both NULL afterwards). */
static void fault_poisons_the_process(cl_program p, cl_kernel k, cl_mem b, cl_event ev) {
    for (int round = 0; round < 2; round++) {
        cl_int err = 0;
        notice[0] = 0;
        cl_context c2 = clCreateContext(NULL, 1, &dev, note_error, NULL, &err);
        CHECK(!c2 && err == CL_OUT_OF_RESOURCES, "clCreateContext after a poisoning fault (round %d): %p, %d", round,
              (void *)c2, err);
        CHECK(strstr(notice, "CUDA_ERROR_ILLEGAL_ADDRESS") && strstr(notice, "restarted"),
              "pfn_notify after a poisoning fault (round %d): \"%s\"", round, notice);
        notice[0] = 0;
        cl_platform_id plat = NULL;
        clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
        c2 = clCreateContextFromType(props, CL_DEVICE_TYPE_GPU, note_error, NULL, &err);
        CHECK(!c2 && err == CL_OUT_OF_RESOURCES, "clCreateContextFromType after a poisoning fault: %d", err);
        CHECK(strstr(notice, "restarted") != NULL, "pfn_notify of clCreateContextFromType: \"%s\"", notice);
        if (round == 0) { /* then everything of the faulted context released: still no context */
            clReleaseEvent(ev);
            clReleaseKernel(k);
            clReleaseProgram(p);
            clReleaseMemObject(b);
            clReleaseCommandQueue(q);
            clReleaseContext(ctx);
            q = NULL, ctx = NULL;
        }
    }
    printf("kernel_api: after a poisoning fault: no context, CL_OUT_OF_RESOURCES, \"%s\"\n", notice);
}

static void fault_recovery(void) {
    int poisons = getenv("FAKECUDA_FAULT_POISONS") && !strcmp(getenv("FAKECUDA_FAULT_POISONS"), "1");
    cl_int err;
    const char *src = "__kernel void fakecuda_fault(__global int *p) { p[0] = 1; }\n"
                      "__kernel void fine(__global int *p) { p[get_global_id(0)] = 2; }\n";
    cl_program p = build(src, "");
    cl_kernel k = clCreateKernel(p, "fakecuda_fault", &err);
    EXPECT(err, CL_SUCCESS);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(clSetKernelArg(k, 0, sizeof b, &b), CL_SUCCESS);
    size_t g = 16;
    cl_event ev = NULL;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &ev), CL_SUCCESS);
    cl_int w = clWaitForEvents(1, &ev), st = 0;
    EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL), CL_SUCCESS);
    CHECK(st < 0, "status of the faulting command: %d", st);
    CHECK(w != CL_SUCCESS, "clWaitForEvents on a faulted command: %d", w);
    CHECK(clFinish(q) != CL_SUCCESS, "clFinish after a fault succeeded");
    int v = 0;
    CHECK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL) != CL_SUCCESS,
          "a read in the faulted context succeeded");
    if (poisons) {
        fault_poisons_the_process(p, k, b, ev);
        return;
    }
    /* While the faulted context lives (applications leak objects), a new context gets a CUDA
     * context of its own and works. */
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_command_queue q2 = clCreateCommandQueue(c2, dev, 0, &err);
    EXPECT(err, CL_SUCCESS);
    int seven = 7, back = 0;
    cl_mem b7 = clCreateBuffer(c2, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof seven, &seven, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q2, b7, CL_TRUE, 0, sizeof back, &back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(back == 7, "data in a context made beside a faulted one: %d", back);
    EXPECT(clFinish(q2), CL_SUCCESS);
    clReleaseMemObject(b7);
    clReleaseCommandQueue(q2);
    clReleaseContext(c2);
    clReleaseEvent(ev);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    /* Everything released: the next context gets a fresh (reset) CUDA context and works. */
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    EXPECT(err, CL_SUCCESS);
    int in[16], out[16];
    for (int i = 0; i < 16; i++) in[i] = 7 * i;
    cl_mem b2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, b2, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(in, out, sizeof in), "data after recovery");
    cl_program p2 = build(src, "");
    cl_kernel fine = clCreateKernel(p2, "fine", &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clSetKernelArg(fine, 0, sizeof b2, &b2), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, fine, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    clReleaseKernel(fine);
    clReleaseProgram(p2);
    clReleaseMemObject(b2);
}

/* A kernel argument does not keep its buffer alive (the CTS's retain_mem_object_set_kernel_arg
   waits, forever before this, for the destructor callback of a buffer released while set): the
   last release destroys the buffer at once; a launch still naming it is refused, and an
   enqueued launch keeps what it uses until it is done. */
static void CL_CALLBACK destroyed(cl_mem m, void *data) { (void)m; (*(int *)data)++; }

static void arg_retention(void) {
    cl_program p = build("__kernel void k(__global int *a) { a[0] = 1; }\n", NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "k", &err);
    CHECK(err == CL_SUCCESS, "create kernel %d", err);
    int gone = 0;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(clSetMemObjectDestructorCallback(b, destroyed, &gone), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 0, sizeof b, &b), CL_SUCCESS);
    EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    CHECK(gone == 1, "destructor callback after the last release of a buffer set as an argument: %d", gone);
    size_t g = 1;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    /* Released after the enqueue: the launch still has it; destroyed once it is done. */
    int gone2 = 0;
    cl_mem b2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(clSetMemObjectDestructorCallback(b2, destroyed, &gone2), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 0, sizeof b2, &b2), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clReleaseMemObject(b2), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    for (int i = 0; i < 1000 && !gone2; i++) usleep(1000);
    CHECK(gone2 == 1, "destructor callback after the launch using the buffer finished: %d", gone2);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    cl_platform_id plat = find_platform();
    dev = find_gpu(plat);
    if (!dev) { printf("kernel_api: skipped (no device)\n"); return 0; }
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda) cuda = dlopen("libcuda.so", RTLD_NOW | RTLD_NOLOAD);
    if (cuda) last_launch = (int (*)(struct fakecuda_launch *))dlsym(cuda, "fakecuda_last_launch");
    if (!last_launch) {
        /* On a real GPU (or another platform) there are no launch records to check. */
        printf("kernel_api: skipped (needs the fake CUDA driver, tests/fakecuda)\n");
        return 0;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (argc > 1 && !strcmp(argv[1], "fault")) {
        fault_recovery();
        return report("kernel_api fault");
    }
    if (argc > 1 && !strcmp(argv[1], "multi")) {
        multi(plat);
        return report("kernel_api multi");
    }
    layout();
    wide_vector();
    programs();
    threads();
    arg_retention();
    fault_recovery();
    return report("kernel_api");
}
