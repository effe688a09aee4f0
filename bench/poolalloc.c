/*
 * poolalloc: what a device allocation costs through the CUDA driver, plain (cuMemAlloc, what
 * clCreateBuffer did) against the stream-ordered pool (cuMemAllocFromPoolAsync on the device's
 * default pool, reserved beforehand), for the sizes a first OpenMP region allocates (a few MiB
 * each). Not a test; run on a machine with a GPU:
 *
 *   gcc -O2 -I/usr/local/cuda/include bench/poolalloc.c -o poolalloc -lcuda && ./poolalloc [MiB]
 *
 * Prints microseconds per call: the first N allocations of a fresh context (plain), their frees,
 * the pool's reservation at start, then N pool allocations (+ the stream synchronisation that
 * makes them usable from any stream) and their frees.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 8
#define CHECK(x)                                                                                    \
    do {                                                                                            \
        CUresult r_ = (x);                                                                          \
        if (r_ != CUDA_SUCCESS) {                                                                   \
            fprintf(stderr, "%s: %d\n", #x, (int)r_);                                               \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    double mib = argc > 1 ? atof(argv[1]) : 2.25;
    size_t size = (size_t)(mib * 1048576);
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUdeviceptr p[N];
    double t, a_plain = 0, f_plain = 0, reserve, a_pool = 0, f_pool = 0, a_pool2 = 0;
    for (int i = 0; i < N; i++) {
        t = now_us();
        CHECK(cuMemAlloc(&p[i], size));
        a_plain += now_us() - t;
    }
    for (int i = 0; i < N; i++) {
        t = now_us();
        CHECK(cuMemFree(p[i]));
        f_plain += now_us() - t;
    }
    CUmemoryPool pool;
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuDeviceGetDefaultMemPool(&pool, dev));
    cuuint64_t keep = 256ull << 20;
    t = now_us();
    CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
    CUdeviceptr big;
    CHECK(cuMemAllocFromPoolAsync(&big, keep, pool, s));
    CHECK(cuMemFreeAsync(big, s));
    CHECK(cuStreamSynchronize(s));
    reserve = now_us() - t;
    for (int i = 0; i < N; i++) {
        t = now_us();
        CHECK(cuMemAllocFromPoolAsync(&p[i], size, pool, s));
        CHECK(cuStreamSynchronize(s));
        a_pool += now_us() - t;
    }
    for (int i = 0; i < N; i++) {
        t = now_us();
        CHECK(cuCtxSynchronize());
        CHECK(cuMemFreeAsync(p[i], s));
        f_pool += now_us() - t;
    }
    CHECK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) {
        t = now_us();
        CHECK(cuMemAllocFromPoolAsync(&p[i], size, pool, s));
        CHECK(cuStreamSynchronize(s));
        a_pool2 += now_us() - t;
    }
    printf("poolalloc %.2f MiB, us per call: plain alloc %.1f free %.1f | pool reserve 256 MiB %.0f | pool alloc+sync %.1f "
           "free(ctx sync) %.1f realloc %.1f\n",
           mib, a_plain / N, f_plain / N, reserve, a_pool / N, f_pool / N, a_pool2 / N);
    return 0;
}
