/* Shared by cudacl's C test programs: platform selection and a tiny check/report framework.
 * The programs run unchanged on cudacl (default) and on another OpenCL platform named by the
 * environment variable CL_PLATFORM_NAME (e.g. "NVIDIA CUDA"), so results can be compared. */
#ifndef CUDACL_TEST_COMMON_H
#define CUDACL_TEST_COMMON_H
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks_passed, checks_failed;

/* Records one check; prints the failures with their location. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (cond) {                                                          \
            checks_passed++;                                                 \
        } else {                                                             \
            checks_failed++;                                                 \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

/* Checks that an OpenCL call returns the expected code. */
#define EXPECT(call, code)                                                   \
    do {                                                                     \
        cl_int got_ = (call);                                                \
        CHECK(got_ == (code), "got %d, want %d (%s)", got_, (int)(code), #code); \
    } while (0)

/* Prints the closing line and returns the exit status. */
__attribute__((unused)) static int report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}

/* The platform whose name contains $CL_PLATFORM_NAME, or "cudacl" by default. */
static cl_platform_id find_platform(void) {
    const char *want = getenv("CL_PLATFORM_NAME");
    if (!want || !*want) want = "cudacl";
    cl_platform_id ps[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS) return NULL;
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[256] = {0};
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, want)) return ps[i];
    }
    return NULL;
}

/* The first GPU of that platform, or NULL. */
static cl_device_id find_gpu(cl_platform_id p) {
    cl_device_id d = NULL;
    if (!p || clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL) != CL_SUCCESS) return NULL;
    return d;
}

/* The suites' main context. Normally one on `*dev` alone. With CUDACL_TEST_CONTEXT=all (issue
 * 25's multi-GPU runs) it spans every GPU of the platform and *dev becomes the one the suite's
 * queues go to: CUDACL_TEST_QUEUE_DEVICE=N (default: the last GPU, so that data the application
 * gives at creation must move off the first device's path), so every buffer, image and kernel
 * of the suite lives in a multi-device context. */
static inline cl_context suite_context(cl_platform_id p, cl_device_id *dev, void (*notify)(const char *, const void *, size_t, void *), cl_int *err) {
    const char *mode = getenv("CUDACL_TEST_CONTEXT");
    cl_device_id ds[16];
    cl_uint nd = 0;
    if (mode && !strcmp(mode, "all") && p && clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 16, ds, &nd) == CL_SUCCESS && nd > 1) {
        if (nd > 16) nd = 16;
        const char *qd = getenv("CUDACL_TEST_QUEUE_DEVICE");
        cl_uint pick = qd && *qd ? (cl_uint)atoi(qd) : nd - 1;
        if (pick >= nd) pick = nd - 1;
        *dev = ds[pick];
        printf("context over %u GPUs, queues on GPU %u\n", nd, pick);
        return clCreateContext(NULL, nd, ds, notify, NULL, err);
    }
    return clCreateContext(NULL, 1, dev, notify, NULL, err);
}

/* Whether the device takes IL programs (CL_DEVICE_IL_VERSION not empty: cudacl found a SPIR-V
 * translator). The answers for IL programs differ with it. */
__attribute__((unused)) static int device_has_il(cl_device_id d) {
    char v[256] = {0};
    return d && clGetDeviceInfo(d, CL_DEVICE_IL_VERSION, sizeof v - 1, v, NULL) == CL_SUCCESS && v[0] != 0;
}

/* A context on the platform's first two GPUs with an in-order queue on each, or NULL when it
 * has fewer (after printing "WHAT: skipped (N GPU)"). For the multi-device sections. */
static inline cl_context two_gpu_context(cl_platform_id p, const char *what, cl_device_id ds[2], cl_command_queue qs[2]) {
    cl_uint nd = 0;
    if (!p || clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 2, ds, &nd) != CL_SUCCESS || nd < 2) {
        printf("%s: skipped (%u GPU)\n", what, nd);
        return NULL;
    }
    cl_int err;
    cl_context c = clCreateContext(NULL, 2, ds, NULL, NULL, &err);
    CHECK(c != NULL, "2-device context: %d", err);
    if (!c) return NULL;
    qs[0] = clCreateCommandQueue(c, ds[0], 0, &err);
    qs[1] = clCreateCommandQueue(c, ds[1], 0, &err);
    return c;
}
#endif
