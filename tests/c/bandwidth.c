/* Host <-> device bandwidth through OpenCL (a benchmark, not a test).
 *
 * For 64 MiB and 256 MiB: blocking clEnqueueWriteBuffer / clEnqueueReadBuffer from pageable
 * memory (malloc, touched beforehand) and from pinned memory (a CL_MEM_ALLOC_HOST_PTR buffer,
 * mapped once; its pointer is the host side of the transfers, as NVIDIA's oclBandwidthTest
 * does), plus a device-to-device copy. Each figure is the median of several timed runs after
 * one warm-up run; min and max are printed beside it.
 *
 *   ./bandwidth            64 MiB and 256 MiB, 9 runs each
 *   ./bandwidth --quick    1 MiB and 4 MiB, 3 runs (a smoke run for CI)
 *   ./bandwidth SIZE_MIB...   other sizes
 * Platform: cudacl unless $CL_PLATFORM_NAME names another (e.g. "NVIDIA").
 */
#include "common.h"
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { WRITE_PAGEABLE, READ_PAGEABLE, WRITE_PINNED, READ_PINNED, COPY_D2D, MODES };
static const char *mode_names[MODES] = {"write pageable", "read pageable", "write pinned", "read pinned", "copy device"};

int main(int argc, char **argv) {
    size_t sizes[8] = {64u << 20, 256u << 20};
    int nsizes = 2, runs = 9;
    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        sizes[0] = 1u << 20;
        sizes[1] = 4u << 20;
        runs = 3;
    } else if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 8; i++) sizes[nsizes++] = (size_t)atol(argv[i]) << 20;
    }
    cl_platform_id platform = find_platform();
    cl_device_id device = find_gpu(platform);
    if (!device) {
        printf("bandwidth: no GPU on the selected platform\n");
        return 2;
    }
    char pname[256] = {0}, dname[256] = {0}, pver[256] = {0};
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    printf("platform: %s (%s)\ndevice: %s\nruns: %d (median of timed runs after 1 warm-up)\n\n", pname, pver, dname, runs);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    if (!ctx || !q) {
        printf("bandwidth: setup failed (%d)\n", err);
        return 2;
    }
    printf("%-10s %-16s %10s %10s %10s\n", "size", "transfer", "GB/s", "min", "max");
    int failures = 0;
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        cl_mem dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        cl_mem dev2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        cl_mem pin = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
        unsigned char *pageable = malloc(n);
        if (!dev || !dev2 || !pin || !pageable) {
            printf("bandwidth: allocation of %zu MiB failed (%d)\n", n >> 20, err);
            return 2;
        }
        memset(pageable, 0x5a, n); /* touch every page before timing */
        unsigned char *pinned = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
        if (!pinned) {
            printf("bandwidth: map failed (%d)\n", err);
            return 2;
        }
        memset(pinned, 0xa5, n);
        for (int mode = 0; mode < MODES; mode++) {
            double t[64];
            for (int r = 0; r <= runs && r < 64; r++) {
                double t0 = now_s();
                switch (mode) {
                case WRITE_PAGEABLE: err = clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, n, pageable, 0, NULL, NULL); break;
                case READ_PAGEABLE: err = clEnqueueReadBuffer(q, dev, CL_TRUE, 0, n, pageable, 0, NULL, NULL); break;
                case WRITE_PINNED: err = clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, n, pinned, 0, NULL, NULL); break;
                case READ_PINNED: err = clEnqueueReadBuffer(q, dev, CL_TRUE, 0, n, pinned, 0, NULL, NULL); break;
                case COPY_D2D:
                    err = clEnqueueCopyBuffer(q, dev, dev2, 0, 0, n, 0, NULL, NULL);
                    if (err == CL_SUCCESS) err = clFinish(q);
                    break;
                }
                double dt = now_s() - t0;
                if (err != CL_SUCCESS) {
                    printf("bandwidth: %s failed (%d)\n", mode_names[mode], err);
                    failures++;
                    break;
                }
                if (r > 0) t[r - 1] = dt;
            }
            if (err != CL_SUCCESS) continue;
            qsort(t, (size_t)runs, sizeof t[0], cmp_double);
            double gb = n / 1e9;
            char label[32] = "";
            if (mode == 0) snprintf(label, sizeof label, "%zu MiB", n >> 20);
            printf("%-10s %-16s %10.2f %10.2f %10.2f\n", label, mode_names[mode], gb / t[runs / 2], gb / t[runs - 1], gb / t[0]);
        }
        /* the data made it: pinned was last read from dev, which holds pinned's pattern */
        if (pinned[0] != 0xa5 || pinned[n - 1] != 0xa5) {
            printf("bandwidth: data check failed at %zu MiB\n", n >> 20);
            failures++;
        }
        clEnqueueUnmapMemObject(q, pin, pinned, 0, NULL, NULL);
        clFinish(q);
        clReleaseMemObject(dev);
        clReleaseMemObject(dev2);
        clReleaseMemObject(pin);
        free(pageable);
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    (void)report; /* common.h's check framework is not used here */
    return failures ? 1 : 0;
}
