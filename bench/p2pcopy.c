/* Copy bandwidth between two GPUs of one OpenCL context (issue 25), beside the CUDA driver's own
 * cuMemcpyPeer on the same two devices in the same process.
 *   opencl   clEnqueueCopyBuffer on device 1's queue from a buffer only device 0 holds (device 0
 *            filled it just before) into another buffer: what an application moving data between
 *            its GPUs pays. GB/s from the command's profiling times and from the host's clock
 *            (enqueue to clFinish).
 *   cuda     cuMemcpyPeer between two cuMemAlloc buffers of the devices' primary contexts, host
 *            clock around the blocking call; first without peer access (the driver stages the
 *            copy through host memory), then with cuCtxEnablePeerAccess both ways.
 * Median of REPS; the last OpenCL copy is read back on device 1 and checked. CUDA is measured
 * first, so its "staged" row runs before anything in the process enabled peer access.
 *   p2pcopy [MiB]      default 256; OCL_ICD_FILENAMES picks the platform; prints one table
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 7

#define CHECK(e)                                                                                   \
    do {                                                                                           \
        cl_int err_ = (e);                                                                         \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "p2pcopy: %s failed: %d (line %d)\n", #e, err_, __LINE__);             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

/* ---- the CUDA driver, declared here: no CUDA headers needed to build */
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(int *, int);
    CUresult (*PrimaryCtxRetain)(void **, int);
    CUresult (*CtxSetCurrent)(void *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyPeer)(CUdeviceptr, void *, CUdeviceptr, void *, size_t);
    CUresult (*CtxEnablePeerAccess)(void *, unsigned);
    CUresult (*DeviceCanAccessPeer)(int *, int, int);
    CUresult (*CtxSynchronize)(void);
} cu;

/* GB/s of cuMemcpyPeer device 0 -> device 1 (0 when it cannot be measured); *peer: whether the
   devices can have peer access */
static void cuda_rates(size_t n, double *staged, double *direct, int *can) {
    *staged = *direct = 0;
    *can = 0;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
#define SYM(f, name) if (!(*(void **)&cu.f = dlsym(lib, name))) return;
    SYM(Init, "cuInit") SYM(DeviceGetCount, "cuDeviceGetCount") SYM(DeviceGet, "cuDeviceGet")
    SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain") SYM(CtxSetCurrent, "cuCtxSetCurrent")
    SYM(MemAlloc, "cuMemAlloc_v2") SYM(MemFree, "cuMemFree_v2") SYM(MemcpyPeer, "cuMemcpyPeer")
    SYM(CtxEnablePeerAccess, "cuCtxEnablePeerAccess") SYM(DeviceCanAccessPeer, "cuDeviceCanAccessPeer")
    SYM(CtxSynchronize, "cuCtxSynchronize")
    int count = 0, d0, d1;
    if (cu.Init(0) || cu.DeviceGetCount(&count) || count < 2 || cu.DeviceGet(&d0, 0) || cu.DeviceGet(&d1, 1)) return;
    void *c0, *c1;
    CUdeviceptr p0, p1;
    if (cu.PrimaryCtxRetain(&c0, d0) || cu.PrimaryCtxRetain(&c1, d1)) return;
    if (cu.CtxSetCurrent(c0) || cu.MemAlloc(&p0, n) || cu.CtxSetCurrent(c1) || cu.MemAlloc(&p1, n)) return;
    cu.CtxSetCurrent(c0);
    double t[REPS];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            int a = 0, b = 0;
            cu.DeviceCanAccessPeer(&a, d1, d0);
            cu.DeviceCanAccessPeer(&b, d0, d1);
            *can = a && b;
            if (!*can) break;
            cu.CtxSetCurrent(c1);
            cu.CtxEnablePeerAccess(c0, 0); /* already enabled (704) is fine */
            cu.CtxSetCurrent(c0);
            cu.CtxEnablePeerAccess(c1, 0);
        }
        /* a device-to-device cuMemcpyPeer returns before the copy is done: both contexts are
           synchronised inside the timing */
        cu.MemcpyPeer(p1, c1, p0, c0, n); /* warm-up */
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            if (cu.MemcpyPeer(p1, c1, p0, c0, n)) return;
            cu.CtxSetCurrent(c1);
            cu.CtxSynchronize();
            cu.CtxSetCurrent(c0);
            cu.CtxSynchronize();
            t[r] = now() - t0;
        }
        *(pass ? direct : staged) = n / median(t, REPS) / 1e9;
    }
    cu.CtxSetCurrent(c0);
    cu.MemFree(p0);
    cu.CtxSetCurrent(c1);
    cu.MemFree(p1);
    cu.CtxSetCurrent(NULL);
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t n = mib << 20;
    double staged, direct;
    int can;
    cuda_rates(n, &staged, &direct, &can);

    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    cl_platform_id plat = NULL;
    cl_device_id dev[2];
    for (cl_uint i = 0; i < np && !plat; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 2, dev, &nd) == CL_SUCCESS && nd >= 2) plat = plats[i];
    }
    if (!plat) {
        printf("p2pcopy: no platform with two GPUs\n");
        return 2;
    }
    char pname[128] = "";
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 2, dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q0 = clCreateCommandQueue(ctx, dev[0], CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_command_queue q1 = clCreateCommandQueue(ctx, dev[1], CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    double tev[REPS], twall[REPS];
    cl_uint pattern = 0;
    for (int r = -1; r < REPS; r++) { /* r = -1: warm-up (allocations on both devices) */
        pattern = 0x9E3779B9u * (unsigned)(r + 2);
        CHECK(clEnqueueFillBuffer(q0, a, &pattern, sizeof pattern, 0, n, 0, NULL, NULL));
        CHECK(clFinish(q0));
        cl_event e;
        double t0 = now();
        CHECK(clEnqueueCopyBuffer(q1, a, b, 0, 0, n, 0, NULL, &e));
        CHECK(clFinish(q1));
        double t1 = now();
        cl_ulong s = 0, f = 0;
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof f, &f, NULL));
        clReleaseEvent(e);
        if (r >= 0) {
            tev[r] = (f - s) * 1e-9;
            twall[r] = t1 - t0;
        }
    }
    cl_uint *back = malloc(n);
    CHECK(clEnqueueReadBuffer(q1, b, CL_TRUE, 0, n, back, 0, NULL, NULL));
    size_t bad = 0;
    for (size_t i = 0; i < n / 4; i++) bad += back[i] != pattern;
    free(back);
    double ev = n / median(tev, REPS) / 1e9, wall = n / median(twall, REPS) / 1e9;
    printf("p2pcopy: %zu MiB, device 0 -> device 1, GB/s, median of %d\n", mib, REPS);
    printf("p2pcopy: %-28s %8s %8s %s\n", "way", "event", "wall", "check");
    printf("p2pcopy: %-28.28s %8.1f %8.1f %s\n", pname, ev, wall, bad ? "WRONG" : "ok");
    printf("p2pcopy: %-28s %8s %8.1f\n", "cuMemcpyPeer staged", "-", staged);
    if (can) printf("p2pcopy: %-28s %8s %8.1f\n", "cuMemcpyPeer peer access", "-", direct);
    else printf("p2pcopy: %-28s (the devices cannot have peer access)\n", "cuMemcpyPeer peer access");
    printf("p2pcopy: ratio opencl wall / cuMemcpyPeer best: %.2f\n", wall / (direct > staged ? direct : staged));
    return bad ? 1 : 0;
}
