/* cudacl application-shaped benchmark (not a test), issue 12: what image-processing libraries and
 * small-kernel pipelines pay per command, and the kernel kinds they run.
 *
 *  - launch path: a kernel with 4 buffer arguments and 2 scalars, launched asynchronously, with
 *    clFinish after each, with an event asked for, and as a chain of 3 small dependent kernels
 *    followed by a 4-byte blocking read; 4-byte blocking reads and writes, a 4 KiB map/unmap,
 *    a marker waited for;
 *  - OpenCV's per-operation sequence (ocvseq.*): a kernel object made per operation, launched
 *    with an event that gets a callback, released at once; with clFinish each, and back to back;
 *  - kernel kinds (kernel time from profiling events, 3840x2160 8-bit image): count-nonzero
 *    (grid-stride loop, __local tree reduction, global atomic), bilinear remap (2-D gather with
 *    float maps), 7x7 separable Gaussian (__local tiles, two passes), absdiff (vload16/vstore16,
 *    abs_diff), LUT (vload4, table gather), convertTo (convert_float4, convert_uchar4_sat_rte);
 *    and a check of the saturating float -> integer conversions at the edges (k.satconv.check),
 *    and from double (k.satconvd.check).
 *
 * Every result is checked against a CPU reference. Times are medians.
 *
 * The platform is the one whose name contains $CL_PLATFORM_NAME ("cudacl" by default), so the
 * same binary measures NVIDIA's OpenCL: CL_PLATFORM_NAME=NVIDIA ./appbench
 * `./appbench raw [axpb4.ptx]` measures the same launch-path rows on the CUDA driver API directly
 * (libcuda.so.1 opened with dlopen; the kernel is equivalent PTX, made by llc-19 from IR, launched
 * with kernelParams), the floor any OpenCL implementation on CUDA pays; also launched through a
 * parameter buffer as cudacl does, and, given the PTX ptxgen makes of axpb4, that kernel; and
 * the ways a blocking 4-byte read can wait (raw.read4.*: pinned or pageable destination, stream
 * synchronise or query, event query or synchronise, synchronous copy).
 *
 * Besides a human-readable table, each result is one machine-readable line:
 *   RESULT <key> <value> <unit> <goal> <ok>
 * goal: "raw+0.5&nv" (<= raw CUDA + 0.5 us and <= NVIDIA), "nv" (<= NVIDIA), "-" (information).
 * scripts/appbench-table.sh joins the three runs (cudacl, NVIDIA, raw) into one table.
 *
 * Build: cc -O2 -o appbench bench/appbench.c -lOpenCL -lm -ldl
 * Usage: ./appbench | ./appbench raw [axpb4.ptx] | ./appbench --print-axpb4 (the launch kernel's source)
 *        | ./appbench --print-source (the kernel kinds' program source)
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(2); } while (0)
#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) DIE("%s:%d: %s = %d", __FILE__, __LINE__, #call, e_); } while (0)

static int failures;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void result(const char *key, const char *label, double v, const char *unit, const char *goal, int ok) {
    printf("| %-54s | %10.3f %-2s | %-4s |\n", label, v, unit, ok ? "ok" : "FAIL");
    printf("RESULT %s %.4f %s %s %s\n", key, v, unit, goal, ok ? "ok" : "FAIL");
    if (!ok) failures++;
}

/* The launch-path kernel: 4 buffers, 2 scalars. */
enum { NSMALL = 4096, LAUNCHES = 10000, REPS = 7, SYNC = 2000 };
static void fill_small(float *a, float *b, float *c) {
    for (int i = 0; i < NSMALL; i++) { a[i] = (float)i; b[i] = 1.0f; c[i] = 0.5f; }
}
/* d = a * s + b - c */
static int check_axpb(const float *a, const float *b, const float *c, const float *d, float s) {
    for (int i = 0; i < NSMALL; i++)
        if (d[i] != a[i] * s + b[i] - c[i]) return 0;
    return 1;
}

/* ------------------------------------------------------------------ raw CUDA driver API */

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;

/* llc-19 -march=nvptx64 -mcpu=sm_50 -mattr=+ptx60 -O2 of the IR equivalent of axpb4 below. */
static const char *RAW_PTX =
    ".version 6.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry axpb4(\n"
    "  .param .u64 axpb4_param_0, .param .u64 axpb4_param_1, .param .u64 axpb4_param_2,\n"
    "  .param .u64 axpb4_param_3, .param .u32 axpb4_param_4, .param .f32 axpb4_param_5)\n"
    "{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<8>; .reg .b64 %rd<10>;\n"
    "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %ctaid.x;\n"
    "  ld.param.u32 %r5, [axpb4_param_4];\n"
    "  mad.lo.s32 %r1, %r4, %r3, %r2;\n"
    "  setp.ge.s32 %p1, %r1, %r5;\n"
    "  @%p1 bra $L__BB0_2;\n"
    "  ld.param.f32 %f1, [axpb4_param_5];\n"
    "  ld.param.u64 %rd4, [axpb4_param_3]; ld.param.u64 %rd3, [axpb4_param_2];\n"
    "  ld.param.u64 %rd2, [axpb4_param_1]; ld.param.u64 %rd1, [axpb4_param_0];\n"
    "  mul.wide.s32 %rd5, %r1, 4;\n"
    "  add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5; add.s64 %rd8, %rd3, %rd5; add.s64 %rd9, %rd4, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6]; ld.global.f32 %f3, [%rd7]; ld.global.f32 %f4, [%rd8];\n"
    "  mul.rn.f32 %f5, %f2, %f1; add.rn.f32 %f6, %f5, %f3; sub.rn.f32 %f7, %f6, %f4;\n"
    "  st.global.f32 [%rd9], %f7;\n"
    "$L__BB0_2:\n"
    "  ret;\n"
    "}\n";

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*EventQuery)(CUevent);
    CUresult (*StreamQuery)(CUstream);
    CUresult (*MemAllocHost)(void **, size_t);
} cu;

#define CU(call) do { CUresult r_ = (call); if (r_ != 0) DIE("%s:%d: %s = CUDA error %d", __FILE__, __LINE__, #call, r_); } while (0)

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) DIE("libcuda.so.1 has no %s", name);
    return p;
}

/* The parameter-buffer size of the first .entry of a PTX text: each ".param .<type> name" in
 * order, aligned to its size (the layout CU_LAUNCH_PARAM_BUFFER_POINTER takes). */
static size_t ptx_param_bytes(const char *ptx) {
    const char *p = strstr(ptx, ".entry");
    const char *end = p ? strchr(p, ')') : NULL;
    size_t off = 0;
    while (p && end && (p = strstr(p, ".param .")) && p < end) {
        p += 8;
        size_t sz = (p[1] == '6' || p[1] == '8') && (p[0] == 'u' || p[0] == 'b' || p[0] == 's' || p[0] == 'f') && p[2] == '4' ? 8 : 4;
        if (!strncmp(p, "u8", 2) || !strncmp(p, "b8", 2) || !strncmp(p, "s8", 2)) sz = 1;
        if (!strncmp(p, "u16", 3) || !strncmp(p, "b16", 3) || !strncmp(p, "s16", 3) || !strncmp(p, "f16", 3)) sz = 2;
        off = (off + sz - 1) / sz * sz + sz;
    }
    return off;
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) DIE("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = calloc(1, n + 1);
    if (fread(t, 1, n, f) != (size_t)n) DIE("cannot read %s", path);
    fclose(f);
    return t;
}

static int raw_main(const char *cudacl_ptx) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) DIE("no libcuda.so.1: %s", dlerror());
#define LOAD(f, name) (*(void **)&cu.f = sym(lib, name))
    LOAD(Init, "cuInit"); LOAD(DriverGetVersion, "cuDriverGetVersion"); LOAD(DeviceGet, "cuDeviceGet");
    LOAD(DeviceGetName, "cuDeviceGetName"); LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    LOAD(CtxSetCurrent, "cuCtxSetCurrent"); LOAD(ModuleLoadData, "cuModuleLoadData");
    LOAD(ModuleGetFunction, "cuModuleGetFunction"); LOAD(MemAlloc, "cuMemAlloc_v2");
    LOAD(MemcpyHtoD, "cuMemcpyHtoD_v2"); LOAD(MemcpyDtoH, "cuMemcpyDtoH_v2");
    LOAD(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"); LOAD(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    LOAD(StreamCreate, "cuStreamCreate"); LOAD(StreamSynchronize, "cuStreamSynchronize");
    LOAD(LaunchKernel, "cuLaunchKernel"); LOAD(EventCreate, "cuEventCreate"); LOAD(EventRecord, "cuEventRecord");
    LOAD(EventSynchronize, "cuEventSynchronize"); LOAD(EventDestroy, "cuEventDestroy_v2");
    LOAD(EventQuery, "cuEventQuery"); LOAD(StreamQuery, "cuStreamQuery"); LOAD(MemAllocHost, "cuMemAllocHost_v2");
#undef LOAD
    CU(cu.Init(0));
    CUdevice dev;
    CU(cu.DeviceGet(&dev, 0));
    char name[256] = {0};
    int ver = 0;
    cu.DeviceGetName(name, sizeof name, dev);
    cu.DriverGetVersion(&ver);
    CUcontext ctx;
    CU(cu.DevicePrimaryCtxRetain(&ctx, dev));
    CU(cu.CtxSetCurrent(ctx));
    CUmodule mod;
    CU(cu.ModuleLoadData(&mod, RAW_PTX));
    CUfunction f;
    CU(cu.ModuleGetFunction(&f, mod, "axpb4"));
    CUstream s;
    CU(cu.StreamCreate(&s, 1 /* CU_STREAM_NON_BLOCKING, as cudacl's queues */));
    printf("appbench: raw CUDA driver API %d on %s\n\n", ver, name);
    printf("| %-54s | %13s | %-4s |\n", "benchmark", "median", "check");
    printf("|%s|%s|%s|\n", "--------------------------------------------------------", "---------------", "------");

    static float a[NSMALL], b[NSMALL], c[NSMALL], d[NSMALL];
    fill_small(a, b, c);
    size_t bytes = sizeof a;
    CUdeviceptr da, db, dc, dd, dz;
    CU(cu.MemAlloc(&da, bytes)); CU(cu.MemAlloc(&db, bytes)); CU(cu.MemAlloc(&dc, bytes));
    CU(cu.MemAlloc(&dd, bytes)); CU(cu.MemAlloc(&dz, bytes));
    CU(cu.MemcpyHtoD(da, a, bytes)); CU(cu.MemcpyHtoD(db, b, bytes)); CU(cu.MemcpyHtoD(dc, c, bytes));
    static float zeros[NSMALL];
    CU(cu.MemcpyHtoD(dz, zeros, bytes));
    int n = NSMALL;
    float sc = 2.0f;
    void *args[6] = {&da, &db, &dc, &dd, &n, &sc};
    unsigned grid = NSMALL / 128, block = 128;
#define LAUNCH(argv) CU(cu.LaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, (argv), NULL))
    for (int i = 0; i < 100; i++) LAUNCH(args);
    CU(cu.StreamSynchronize(s));

    double thr[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++) LAUNCH(args);
        CU(cu.StreamSynchronize(s));
        thr[r] = (now_us() - t0) / LAUNCHES;
    }
    CU(cu.MemcpyDtoH(d, dd, bytes));
    int ok = check_axpb(a, b, c, d, sc);
    result("launch4.async", "4 buf + 2 scalar: async launch (thruput)", median(thr, REPS), "us", "-", ok);

    static double one[SYNC];
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        LAUNCH(args);
        CU(cu.StreamSynchronize(s));
        one[i] = now_us() - t0;
    }
    result("launch4.sync", "4 buf + 2 scalar: launch + sync", median(one, SYNC), "us", "-", ok);

    /* The same launches through one parameter buffer (CU_LAUNCH_PARAM_BUFFER_POINTER), as
     * cudacl issues them; and, given the PTX ptxgen makes for axpb4 (implicit parameters
     * after the 6 of the source, left zero: no offset), that kernel. */
    for (int variant = 0; variant < 2; variant++) {
        CUfunction fv = f;
        size_t psize = 40;
        if (variant == 1) {
            if (!cudacl_ptx) break;
            char *text = read_text(cudacl_ptx);
            CUmodule m2;
            CU(cu.ModuleLoadData(&m2, text));
            CU(cu.ModuleGetFunction(&fv, m2, "axpb4"));
            psize = ptx_param_bytes(text);
            free(text);
        }
        static unsigned char pbuf[4096] __attribute__((aligned(16)));
        memset(pbuf, 0, sizeof pbuf);
        memcpy(pbuf, &da, 8); memcpy(pbuf + 8, &db, 8); memcpy(pbuf + 16, &dc, 8); memcpy(pbuf + 24, &dd, 8);
        memcpy(pbuf + 32, &n, 4); memcpy(pbuf + 36, &sc, 4);
        void *extra[5] = {(void *)1 /* CU_LAUNCH_PARAM_BUFFER_POINTER */, pbuf,
                          (void *)2 /* CU_LAUNCH_PARAM_BUFFER_SIZE */, &psize, (void *)0};
#define LAUNCHX() CU(cu.LaunchKernel(fv, grid, 1, 1, block, 1, 1, 0, s, NULL, extra))
        CU(cu.MemcpyHtoD(dd, zeros, bytes));
        for (int r = 0; r < REPS; r++) {
            double t0 = now_us();
            for (int i = 0; i < LAUNCHES; i++) LAUNCHX();
            CU(cu.StreamSynchronize(s));
            thr[r] = (now_us() - t0) / LAUNCHES;
        }
        CU(cu.MemcpyDtoH(d, dd, bytes));
        int okx = check_axpb(a, b, c, d, sc);
        for (int i = 0; i < SYNC; i++) {
            double t0 = now_us();
            LAUNCHX();
            CU(cu.StreamSynchronize(s));
            one[i] = now_us() - t0;
        }
#undef LAUNCHX
        char label[96];
        snprintf(label, sizeof label, "%s: async launch (thruput), %zu B", variant ? "ptxgen's PTX, param buffer" : "param buffer", psize);
        result(variant ? "raw.ptxgen.async" : "raw.pbuf.async", label, median(thr, REPS), "us", "-", okx);
        snprintf(label, sizeof label, "%s: launch + sync", variant ? "ptxgen's PTX, param buffer" : "param buffer");
        result(variant ? "raw.ptxgen.sync" : "raw.pbuf.sync", label, median(one, SYNC), "us", "-", okx);
    }

    /* An event per launch: what an OpenCL event costs at least. */
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++) {
            CUevent e;
            CU(cu.EventCreate(&e, 2 /* CU_EVENT_DISABLE_TIMING */));
            LAUNCH(args);
            CU(cu.EventRecord(e, s));
            CU(cu.EventDestroy(e));
        }
        CU(cu.StreamSynchronize(s));
        thr[r] = (now_us() - t0) / LAUNCHES;
    }
    result("launch4.event", "4 buf + 2 scalar: async launch, event each", median(thr, REPS), "us", "-", ok);

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CUevent e;
        CU(cu.EventCreate(&e, 2));
        LAUNCH(args);
        CU(cu.EventRecord(e, s));
        CU(cu.EventSynchronize(e));
        CU(cu.EventDestroy(e));
        one[i] = now_us() - t0;
    }
    result("launch4.eventwait", "4 buf + 2 scalar: launch + wait for its event", median(one, SYNC), "us", "-", ok);

    /* The chain: D = A + B, A = D - B, D = A + B, then 4 bytes of D read back. */
    float one_f = 1.0f, got = 0;
    void *k1[6] = {&da, &db, &dz, &dd, &n, &one_f};
    void *k2[6] = {&dd, &dz, &db, &da, &n, &one_f};
    ok = 1;
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        LAUNCH(k1); LAUNCH(k2); LAUNCH(k1);
        CU(cu.MemcpyDtoHAsync(&got, dd + 5 * sizeof(float), sizeof got, s));
        CU(cu.StreamSynchronize(s));
        one[i] = now_us() - t0;
        if (got != a[5] + b[5]) ok = 0;
    }
    result("chain3.read4", "chain: 3 dependent kernels + 4-byte read", median(one, SYNC), "us", "-", ok);

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CU(cu.MemcpyDtoHAsync(&got, da + 7 * sizeof(float), sizeof got, s));
        CU(cu.StreamSynchronize(s));
        one[i] = now_us() - t0;
    }
    result("read4", "blocking 4-byte read", median(one, SYNC), "us", "-", got == a[7]);

    /* Ways a blocking 4-byte read can wait (issue 12: which one is quickest on this driver):
     * into pinned memory (cuMemAllocHost) with cuMemcpyDtoHAsync and then cuStreamSynchronize,
     * a spin on cuStreamQuery, or an event recorded after it and spun on with cuEventQuery, or
     * waited for with cuEventSynchronize; the synchronous cuMemcpyDtoH into pinned and into
     * pageable memory (legacy default stream: usable only when the queue's stream is idle). */
    float *pin;
    CU(cu.MemAllocHost((void **)&pin, 64));
    CUevent ev;
    CU(cu.EventCreate(&ev, 2 /* CU_EVENT_DISABLE_TIMING */));
    static const char *const rd_key[] = {"raw.read4.pin.ssync", "raw.read4.pin.squery", "raw.read4.pin.equery",
                                         "raw.read4.pin.esync", "raw.read4.pin.memcpy", "raw.read4.pageable.memcpy"};
    static const char *const rd_label[] = {
        "read4 pinned: DtoHAsync + cuStreamSynchronize", "read4 pinned: DtoHAsync + spin cuStreamQuery",
        "read4 pinned: DtoHAsync + event, spin cuEventQuery", "read4 pinned: DtoHAsync + event, cuEventSynchronize",
        "read4 pinned: cuMemcpyDtoH (synchronous)", "read4 pageable: cuMemcpyDtoH (synchronous)"};
    for (int v = 0; v < 6; v++) {
        int okv = 1;
        for (int i = 0; i < SYNC; i++) {
            pin[0] = -1;
            got = -1;
            double t0 = now_us();
            switch (v) {
            case 0: CU(cu.MemcpyDtoHAsync(pin, da + 7 * sizeof(float), 4, s)); CU(cu.StreamSynchronize(s)); break;
            case 1: {
                CU(cu.MemcpyDtoHAsync(pin, da + 7 * sizeof(float), 4, s));
                CUresult r;
                while ((r = cu.StreamQuery(s)) == 600 /* CUDA_ERROR_NOT_READY */) {}
                CU(r);
                break;
            }
            case 2: {
                CU(cu.MemcpyDtoHAsync(pin, da + 7 * sizeof(float), 4, s));
                CU(cu.EventRecord(ev, s));
                CUresult r;
                while ((r = cu.EventQuery(ev)) == 600) {}
                CU(r);
                break;
            }
            case 3:
                CU(cu.MemcpyDtoHAsync(pin, da + 7 * sizeof(float), 4, s));
                CU(cu.EventRecord(ev, s));
                CU(cu.EventSynchronize(ev));
                break;
            case 4: CU(cu.MemcpyDtoH(pin, da + 7 * sizeof(float), 4)); break;
            default: CU(cu.MemcpyDtoH(&got, da + 7 * sizeof(float), 4)); break;
            }
            if (v < 5) got = pin[0];
            one[i] = now_us() - t0;
            if (got != a[7]) okv = 0;
        }
        result(rd_key[v], rd_label[v], median(one, SYNC), "us", "-", okv);
    }
    CU(cu.EventDestroy(ev));

    float w = a[9];
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CU(cu.MemcpyHtoDAsync(da + 9 * sizeof(float), &w, sizeof w, s));
        CU(cu.StreamSynchronize(s));
        one[i] = now_us() - t0;
    }
    result("write4", "blocking 4-byte write", median(one, SYNC), "us", "-", 1);

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CUevent e;
        CU(cu.EventCreate(&e, 2));
        CU(cu.EventRecord(e, s));
        CU(cu.EventSynchronize(e));
        CU(cu.EventDestroy(e));
        one[i] = now_us() - t0;
    }
    result("marker.wait", "marker (event) + wait", median(one, SYNC), "us", "-", 1);
    printf("\n%s\n", failures ? "SOME RESULTS WRONG" : "all results checked");
    return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ OpenCL */

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q, qp;

#define AXPB4_SRC \
    "__kernel void axpb4(__global const float *a, __global const float *b, __global const float *c,\n" \
    "                    __global float *d, const int n, const float s) {\n" \
    "  int i = get_global_id(0);\n" \
    "  if (i < n) d[i] = a[i] * s + b[i] - c[i];\n" \
    "}\n"
static const char *SRC =
    AXPB4_SRC
    /* count-nonzero: grid-stride loop, __local tree, one atomic per group. */
    "__kernel void count_nonzero(__global const uchar *src, const int n, __global int *count) {\n"
    "  __local int tmp[256];\n"
    "  int lid = get_local_id(0), acc = 0;\n"
    "  for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += src[i] != 0;\n"
    "  tmp[lid] = acc;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (lid < s) tmp[lid] += tmp[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) atomic_add(count, tmp[0]);\n"
    "}\n"
    /* Bilinear remap: float maps, constant 0 border. */
    "__kernel void remap_linear(__global const uchar *src, const int w, const int h, __global uchar *dst,\n"
    "                           __global const float *mx, __global const float *my) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= w || y >= h) return;\n"
    "  float fx = mx[y * w + x], fy = my[y * w + x];\n"
    "  float x0f = floor(fx), y0f = floor(fy);\n"
    "  int x0 = (int)x0f, y0 = (int)y0f;\n"
    "  float ax = fx - x0f, ay = fy - y0f;\n"
    "  float v[4];\n"
    "  for (int k = 0; k < 4; k++) {\n"
    "    int xx = x0 + (k & 1), yy = y0 + (k >> 1);\n"
    "    v[k] = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? (float)src[yy * w + xx] : 0.0f;\n"
    "  }\n"
    "  float top = v[0] + ax * (v[1] - v[0]), bot = v[2] + ax * (v[3] - v[2]);\n"
    "  dst[y * w + x] = convert_uchar_sat_rte(top + ay * (bot - top));\n"
    "}\n"
    /* 7x7 separable Gaussian, replicate border, 16x16 groups with __local tiles. */
    "#define R 3\n"
    "#define T 16\n"
    "__constant float gw[2 * R + 1] = {0.0702f, 0.1311f, 0.1907f, 0.2160f, 0.1907f, 0.1311f, 0.0702f};\n"
    "__kernel void gauss_row(__global const uchar *src, __global float *dst, const int w, const int h) {\n"
    "  __local float tile[T][T + 2 * R];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1);\n"
    "  int x = get_global_id(0), y = min((int)get_global_id(1), h - 1);\n"
    "  int x0 = (int)get_group_id(0) * T - R;\n"
    "  for (int i = lx; i < T + 2 * R; i += T) tile[ly][i] = src[y * w + clamp(x0 + i, 0, w - 1)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (x >= w || get_global_id(1) >= h) return;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < 2 * R + 1; k++) acc += gw[k] * tile[ly][lx + k];\n"
    "  dst[y * w + x] = acc;\n"
    "}\n"
    "__kernel void gauss_col(__global const float *src, __global uchar *dst, const int w, const int h) {\n"
    "  __local float tile[T + 2 * R][T];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1);\n"
    "  int x = min((int)get_global_id(0), w - 1), y = get_global_id(1);\n"
    "  int y0 = (int)get_group_id(1) * T - R;\n"
    "  for (int i = ly; i < T + 2 * R; i += T) tile[i][lx] = src[clamp(y0 + i, 0, h - 1) * w + x];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_global_id(0) >= w || y >= h) return;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < 2 * R + 1; k++) acc += gw[k] * tile[ly + k][lx];\n"
    "  dst[y * w + x] = convert_uchar_sat_rte(acc);\n"
    "}\n"
    "__kernel void absdiff16(__global const uchar *a, __global const uchar *b, __global uchar *d) {\n"
    "  size_t i = get_global_id(0);\n"
    "  vstore16(abs_diff(vload16(i, a), vload16(i, b)), i, d);\n"
    "}\n"
    "__kernel void lut4(__global const uchar *src, __global const uchar *lut, __global uchar *dst) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uchar4 v = vload4(i, src);\n"
    "  vstore4((uchar4)(lut[v.s0], lut[v.s1], lut[v.s2], lut[v.s3]), i, dst);\n"
    "}\n"
    "__kernel void convert_scale4(__global const uchar *src, __global uchar *dst, const float alpha, const float beta) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float4 f = convert_float4(vload4(i, src)) * alpha + beta;\n"
    "  vstore4(convert_uchar4_sat_rte(f), i, dst);\n"
    "}\n";

static cl_program build(const char *src, int dump_binary) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[16384] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        DIE("build failed (%d):\n%s", err, log);
    }
    /* APPBENCH_BINARY=FILE: the program binary (NVIDIA's is PTX; cudacl's wraps its PTX). */
    const char *dump = dump_binary ? getenv("APPBENCH_BINARY") : NULL;
    size_t size = 0;
    if (dump && clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) == CL_SUCCESS && size) {
        unsigned char *bin = malloc(size);
        FILE *f = fopen(dump, "wb");
        if (bin && f && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
            fwrite(bin, 1, size, f);
        if (f) fclose(f);
        free(bin);
    }
    return p;
}

static cl_kernel kernel(cl_program p, const char *name) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CK(err);
    return k;
}

static cl_mem buffer(cl_mem_flags flags, size_t bytes, void *host) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, bytes, host, &err);
    CK(err);
    return m;
}

static void set_axpb(cl_kernel k, cl_mem a, cl_mem b, cl_mem c, cl_mem d, int n, float s) {
    CK(clSetKernelArg(k, 0, sizeof a, &a));
    CK(clSetKernelArg(k, 1, sizeof b, &b));
    CK(clSetKernelArg(k, 2, sizeof c, &c));
    CK(clSetKernelArg(k, 3, sizeof d, &d));
    CK(clSetKernelArg(k, 4, sizeof n, &n));
    CK(clSetKernelArg(k, 5, sizeof s, &s));
}

static void bench_launch(cl_program p) {
    static float a[NSMALL], b[NSMALL], c[NSMALL], d[NSMALL];
    static float zeros[NSMALL];
    fill_small(a, b, c);
    size_t bytes = sizeof a;
    cl_mem da = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a);
    cl_mem db = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b);
    cl_mem dc = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, c);
    cl_mem dz = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zeros);
    cl_mem dd = buffer(CL_MEM_READ_WRITE, bytes, NULL);
    cl_kernel k = kernel(p, "axpb4");
    float sc = 2.0f;
    set_axpb(k, da, db, dc, dd, NSMALL, sc);
    size_t g = NSMALL, l = 128;
    for (int i = 0; i < 100; i++) CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    CK(clFinish(q));

    double enq[REPS], thr[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++) CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        double t1 = now_us();
        CK(clFinish(q));
        enq[r] = (t1 - t0) / LAUNCHES;
        thr[r] = (now_us() - t0) / LAUNCHES;
    }
    CK(clEnqueueReadBuffer(q, dd, CL_TRUE, 0, bytes, d, 0, NULL, NULL));
    int ok = check_axpb(a, b, c, d, sc);
    result("launch4.call", "4 buf + 2 scalar: enqueue call", median(enq, REPS), "us", "-", ok);
    result("launch4.async", "4 buf + 2 scalar: async launch (thruput)", median(thr, REPS), "us", "raw+0.5&nv", ok);

    static double one[SYNC];
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        CK(clFinish(q));
        one[i] = now_us() - t0;
    }
    result("launch4.sync", "4 buf + 2 scalar: launch + clFinish", median(one, SYNC), "us", "nv", ok);

    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++) {
            cl_event e;
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e));
            CK(clReleaseEvent(e));
        }
        CK(clFinish(q));
        thr[r] = (now_us() - t0) / LAUNCHES;
    }
    result("launch4.event", "4 buf + 2 scalar: async launch, event each", median(thr, REPS), "us", "nv", ok);

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        cl_event e;
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e));
        CK(clWaitForEvents(1, &e));
        CK(clReleaseEvent(e));
        one[i] = now_us() - t0;
    }
    result("launch4.eventwait", "4 buf + 2 scalar: launch + wait for its event", median(one, SYNC), "us", "nv", ok);

    /* The chain: D = A + B, A = D - B, D = A + B, then 4 bytes of D read back. */
    cl_kernel k1 = kernel(p, "axpb4"), k2 = kernel(p, "axpb4");
    set_axpb(k1, da, db, dz, dd, NSMALL, 1.0f);
    set_axpb(k2, dd, dz, db, da, NSMALL, 1.0f);
    float got = 0;
    ok = 1;
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CK(clEnqueueNDRangeKernel(q, k1, 1, NULL, &g, &l, 0, NULL, NULL));
        CK(clEnqueueNDRangeKernel(q, k2, 1, NULL, &g, &l, 0, NULL, NULL));
        CK(clEnqueueNDRangeKernel(q, k1, 1, NULL, &g, &l, 0, NULL, NULL));
        CK(clEnqueueReadBuffer(q, dd, CL_TRUE, 5 * sizeof(float), sizeof got, &got, 0, NULL, NULL));
        one[i] = now_us() - t0;
        if (got != a[5] + b[5]) ok = 0;
    }
    result("chain3.read4", "chain: 3 dependent kernels + 4-byte read", median(one, SYNC), "us", "nv", ok);

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CK(clEnqueueReadBuffer(q, da, CL_TRUE, 7 * sizeof(float), sizeof got, &got, 0, NULL, NULL));
        one[i] = now_us() - t0;
    }
    result("read4", "blocking 4-byte read", median(one, SYNC), "us", "nv", got == a[7]);

    float w = a[9];
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        CK(clEnqueueWriteBuffer(q, da, CL_TRUE, 9 * sizeof(float), sizeof w, &w, 0, NULL, NULL));
        one[i] = now_us() - t0;
    }
    CK(clEnqueueReadBuffer(q, da, CL_TRUE, 9 * sizeof(float), sizeof got, &got, 0, NULL, NULL));
    result("write4", "blocking 4-byte write", median(one, SYNC), "us", "nv", got == w);

    /* A 4 KiB map of a device buffer that a kernel wrote, changed on the host, unmapped. */
    ok = 1;
    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        cl_int err;
        float *m = clEnqueueMapBuffer(q, dc, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 4096, 0, NULL, NULL, &err);
        CK(err);
        if (m[3] != c[3] + (float)(i > 0 ? i - 1 : 0)) ok = 0;
        m[3] = c[3] + (float)i;
        CK(clEnqueueUnmapMemObject(q, dc, m, 0, NULL, NULL));
        CK(clFinish(q));
        one[i] = now_us() - t0;
    }
    CK(clEnqueueReadBuffer(q, dc, CL_TRUE, 3 * sizeof(float), sizeof got, &got, 0, NULL, NULL));
    result("map4k", "map + unmap 4 KiB (blocking map, clFinish)", median(one, SYNC), "us", "nv",
           ok && got == c[3] + (float)(SYNC - 1));

    for (int i = 0; i < SYNC; i++) {
        double t0 = now_us();
        cl_event e;
        CK(clEnqueueMarkerWithWaitList(q, 0, NULL, &e));
        CK(clWaitForEvents(1, &e));
        CK(clReleaseEvent(e));
        one[i] = now_us() - t0;
    }
    result("marker.wait", "marker (event) + wait", median(one, SYNC), "us", "nv", 1);

    clReleaseKernel(k); clReleaseKernel(k1); clReleaseKernel(k2);
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc);
    clReleaseMemObject(dd); clReleaseMemObject(dz);
}

/* OpenCV's transparent API, per operation (bench/cltrace.c's trace of a cv::add on a UMat): a few
 * device queries, a kernel object made for the operation, its arguments, the launch with an
 * event, a CL_COMPLETE callback on that event (OpenCV releases the operation's temporaries
 * there), the event and the kernel released. ocvseq.sync adds clFinish per operation (ocvbench's
 * steady time), ocvseq.async runs LAUNCHES/10 operations back to back, one clFinish at the end.
 * The check: every result right and every callback run, once, with CL_COMPLETE. */
static int ocv_callbacks, ocv_bad_callbacks;
static void CL_CALLBACK ocv_cleanup(cl_event e, cl_int status, void *data) {
    (void)e;
    (void)data;
    if (status != CL_COMPLETE) __atomic_add_fetch(&ocv_bad_callbacks, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&ocv_callbacks, 1, __ATOMIC_SEQ_CST);
}

static void ocv_op(cl_program p, cl_mem a, cl_mem b, cl_mem c, cl_mem d, float s) {
    cl_uint u;
    cl_device_info asked[4] = {CL_DEVICE_MAX_COMPUTE_UNITS, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
                               CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT};
    for (int i = 0; i < 4; i++) CK(clGetDeviceInfo(dev, asked[i], sizeof u, &u, NULL));
    cl_kernel k = kernel(p, "axpb4");
    set_axpb(k, a, b, c, d, NSMALL, s);
    size_t g = NSMALL, l = 128;
    cl_event e;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e));
    CK(clSetEventCallback(e, CL_COMPLETE, ocv_cleanup, NULL));
    CK(clReleaseEvent(e));
    CK(clReleaseKernel(k));
}

static void bench_ocvseq(cl_program p) {
    static float a[NSMALL], b[NSMALL], c[NSMALL], d[NSMALL];
    fill_small(a, b, c);
    size_t bytes = sizeof a;
    cl_mem da = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a);
    cl_mem db = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b);
    cl_mem dc = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, c);
    cl_mem dd = buffer(CL_MEM_READ_WRITE, bytes, NULL);
    int ops = 0;
    float sc = 3.0f;
    for (int i = 0; i < 100; i++, ops++) ocv_op(p, da, db, dc, dd, sc);
    CK(clFinish(q));
    static double one[SYNC];
    for (int i = 0; i < SYNC; i++, ops++) {
        double t0 = now_us();
        ocv_op(p, da, db, dc, dd, sc);
        CK(clFinish(q));
        one[i] = now_us() - t0;
    }
    double thr[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES / 10; i++, ops++) ocv_op(p, da, db, dc, dd, sc);
        CK(clFinish(q));
        thr[r] = (now_us() - t0) / (LAUNCHES / 10);
    }
    CK(clEnqueueReadBuffer(q, dd, CL_TRUE, 0, bytes, d, 0, NULL, NULL));
    /* Callbacks may still be running after clFinish: give them a second. */
    for (int w = 0; w < 1000 && __atomic_load_n(&ocv_callbacks, __ATOMIC_SEQ_CST) < ops; w++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    int ok = check_axpb(a, b, c, d, sc) && ocv_callbacks == ops && ocv_bad_callbacks == 0;
    if (ocv_callbacks != ops || ocv_bad_callbacks)
        fprintf(stderr, "ocvseq: %d operations, %d callbacks, %d not CL_COMPLETE\n", ops, ocv_callbacks, ocv_bad_callbacks);
    result("ocvseq.sync", "OpenCV op: kernel made, event+callback, clFinish", median(one, SYNC), "us", "nv", ok);
    result("ocvseq.async", "OpenCV op: kernel made, event+callback (thruput)", median(thr, REPS), "us", "nv", ok);
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc); clReleaseMemObject(dd);
}

/* Kernel time in ms of one launch on the profiling queue. */
static double kernel_ms(cl_kernel k, cl_uint dims, const size_t *g, const size_t *l) {
    cl_event e;
    cl_ulong a = 0, b = 0;
    CK(clEnqueueNDRangeKernel(qp, k, dims, NULL, g, l, 0, NULL, &e));
    CK(clWaitForEvents(1, &e));
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    clReleaseEvent(e);
    return (double)(b - a) / 1e6;
}

/* The same as wall time: median over 5 rounds of 20 back-to-back launches (of k, then k2 if
 * given) on the plain queue and a clFinish, per launch (pair); independent of how an
 * implementation computes its profiling timestamps. */
static double wall_us(cl_kernel k, cl_kernel k2, cl_uint dims, const size_t *g, const size_t *l) {
    enum { ROUNDS = 5, N = 20 };
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        CK(clFinish(q));
        double t0 = now_us();
        for (int i = 0; i < N; i++) {
            CK(clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, NULL));
            if (k2) CK(clEnqueueNDRangeKernel(q, k2, dims, NULL, g, l, 0, NULL, NULL));
        }
        CK(clFinish(q));
        t[r] = (now_us() - t0) / N;
    }
    return median(t, ROUNDS);
}

enum { W = 3840, H = 2160, KREPS = 15 };
#define NPIX ((size_t)W * H)

static unsigned char sat_rte(float v) {
    float r = rintf(v);
    return r < 0 ? 0 : r > 255 ? 255 : (unsigned char)r;
}

static int close_bytes(const unsigned char *x, const unsigned char *y, size_t n, int tol) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (abs((int)x[i] - (int)y[i]) > tol) bad++;
    if (bad) fprintf(stderr, "  %zu of %zu bytes differ by more than %d\n", bad, n, tol);
    return bad == 0;
}

static void bench_kernels(cl_program p) {
    unsigned char *img = malloc(NPIX), *img2 = malloc(NPIX), *out = malloc(NPIX), *ref = malloc(NPIX);
    float *mx = malloc(NPIX * sizeof(float)), *my = malloc(NPIX * sizeof(float)), *tmp = malloc(NPIX * sizeof(float));
    unsigned s = 12345;
    for (size_t i = 0; i < NPIX; i++) {
        s = s * 1103515245u + 12345u;
        size_t x = i % W, y = i / W;
        /* Smooth content plus noise; about a fifth zeros. */
        int v = (int)((x * 255) / W + (y * 64) / H) + (int)((s >> 16) % 32) - 16;
        img[i] = ((s >> 8) % 5 == 0) ? 0 : (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        img2[i] = (unsigned char)((s >> 20) & 0xff);
        mx[i] = (float)x * 0.97f + 7.3f + 3.0f * sinf((float)y * 0.01f);
        my[i] = (float)y * 1.02f - 5.6f + 2.0f * cosf((float)x * 0.013f);
    }
    cl_mem dimg = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NPIX, img);
    cl_mem dimg2 = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NPIX, img2);
    cl_mem dout = buffer(CL_MEM_READ_WRITE, NPIX, NULL);
    cl_mem dmx = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NPIX * sizeof(float), mx);
    cl_mem dmy = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NPIX * sizeof(float), my);
    cl_mem dtmp = buffer(CL_MEM_READ_WRITE, NPIX * sizeof(float), NULL);
    cl_mem dcount = buffer(CL_MEM_READ_WRITE, sizeof(cl_int), NULL);
    unsigned char lut[256];
    for (int i = 0; i < 256; i++) lut[i] = (unsigned char)(255.0 * pow(i / 255.0, 0.45) + 0.5);
    cl_mem dlut = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof lut, lut);
    int w = W, h = H, n = (int)NPIX;
    double t[KREPS];
    char label[96];

    { /* count-nonzero */
        cl_kernel k = kernel(p, "count_nonzero");
        CK(clSetKernelArg(k, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(k, 1, sizeof n, &n));
        CK(clSetKernelArg(k, 2, sizeof dcount, &dcount));
        size_t l = 256, g = 256 * 1024;
        cl_int zero = 0, got = -1, want = 0;
        for (size_t i = 0; i < NPIX; i++) want += img[i] != 0;
        int ok = 1;
        for (int r = -1; r < KREPS; r++) {
            CK(clEnqueueFillBuffer(qp, dcount, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL));
            double ms = kernel_ms(k, 1, &g, &l);
            if (r >= 0) t[r] = ms;
            CK(clEnqueueReadBuffer(qp, dcount, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
            if (got != want) ok = 0;
        }
        snprintf(label, sizeof label, "count-nonzero %dx%d u8 (kernel)", W, H);
        result("k.count_nonzero", label, median(t, KREPS) * 1e3, "us", "nv", ok);
        result("k.count_nonzero.wall", "  same, wall time per launch", wall_us(k, NULL, 1, &g, &l), "us", "nv", ok);
        clReleaseKernel(k);
    }
    { /* remap */
        cl_kernel k = kernel(p, "remap_linear");
        CK(clSetKernelArg(k, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(k, 1, sizeof w, &w));
        CK(clSetKernelArg(k, 2, sizeof h, &h));
        CK(clSetKernelArg(k, 3, sizeof dout, &dout));
        CK(clSetKernelArg(k, 4, sizeof dmx, &dmx));
        CK(clSetKernelArg(k, 5, sizeof dmy, &dmy));
        size_t g[2] = {W, H}, l[2] = {32, 8};
        kernel_ms(k, 2, g, l);
        for (int r = 0; r < KREPS; r++) t[r] = kernel_ms(k, 2, g, l);
        CK(clEnqueueReadBuffer(qp, dout, CL_TRUE, 0, NPIX, out, 0, NULL, NULL));
        for (size_t i = 0; i < NPIX; i++) {
            float fx = mx[i], fy = my[i], x0f = floorf(fx), y0f = floorf(fy), v[4];
            int x0 = (int)x0f, y0 = (int)y0f;
            float ax = fx - x0f, ay = fy - y0f;
            for (int kk = 0; kk < 4; kk++) {
                int xx = x0 + (kk & 1), yy = y0 + (kk >> 1);
                v[kk] = (xx >= 0 && xx < W && yy >= 0 && yy < H) ? (float)img[(size_t)yy * W + xx] : 0.0f;
            }
            float top = v[0] + ax * (v[1] - v[0]), bot = v[2] + ax * (v[3] - v[2]);
            ref[i] = sat_rte(top + ay * (bot - top));
        }
        snprintf(label, sizeof label, "remap bilinear %dx%d u8, float maps (kernel)", W, H);
        result("k.remap", label, median(t, KREPS) * 1e3, "us", "nv", close_bytes(out, ref, NPIX, 1));
        result("k.remap.wall", "  same, wall time per launch", wall_us(k, NULL, 2, g, l), "us", "nv", 1);
        clReleaseKernel(k);
    }
    { /* 7x7 separable Gaussian: both passes */
        cl_kernel kr = kernel(p, "gauss_row"), kc = kernel(p, "gauss_col");
        CK(clSetKernelArg(kr, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(kr, 1, sizeof dtmp, &dtmp));
        CK(clSetKernelArg(kr, 2, sizeof w, &w));
        CK(clSetKernelArg(kr, 3, sizeof h, &h));
        CK(clSetKernelArg(kc, 0, sizeof dtmp, &dtmp));
        CK(clSetKernelArg(kc, 1, sizeof dout, &dout));
        CK(clSetKernelArg(kc, 2, sizeof w, &w));
        CK(clSetKernelArg(kc, 3, sizeof h, &h));
        size_t g[2] = {W, H}, l[2] = {16, 16};
        kernel_ms(kr, 2, g, l);
        kernel_ms(kc, 2, g, l);
        for (int r = 0; r < KREPS; r++) t[r] = kernel_ms(kr, 2, g, l) + kernel_ms(kc, 2, g, l);
        CK(clEnqueueReadBuffer(qp, dout, CL_TRUE, 0, NPIX, out, 0, NULL, NULL));
        static const float gw[7] = {0.0702f, 0.1311f, 0.1907f, 0.2160f, 0.1907f, 0.1311f, 0.0702f};
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float acc = 0;
                for (int kk = 0; kk < 7; kk++) {
                    int xx = x + kk - 3;
                    xx = xx < 0 ? 0 : xx >= W ? W - 1 : xx;
                    acc += gw[kk] * (float)img[(size_t)y * W + xx];
                }
                tmp[(size_t)y * W + x] = acc;
            }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float acc = 0;
                for (int kk = 0; kk < 7; kk++) {
                    int yy = y + kk - 3;
                    yy = yy < 0 ? 0 : yy >= H ? H - 1 : yy;
                    acc += gw[kk] * tmp[(size_t)yy * W + x];
                }
                ref[(size_t)y * W + x] = sat_rte(acc);
            }
        snprintf(label, sizeof label, "Gaussian 7x7 separable __local %dx%d (2 kernels)", W, H);
        result("k.gauss7", label, median(t, KREPS) * 1e3, "us", "nv", close_bytes(out, ref, NPIX, 1));
        result("k.gauss7.wall", "  same, wall time per pair of launches", wall_us(kr, kc, 2, g, l), "us", "nv", 1);
        clReleaseKernel(kr); clReleaseKernel(kc);
    }
    { /* absdiff */
        cl_kernel k = kernel(p, "absdiff16");
        CK(clSetKernelArg(k, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(k, 1, sizeof dimg2, &dimg2));
        CK(clSetKernelArg(k, 2, sizeof dout, &dout));
        size_t g = NPIX / 16, l = 256;
        kernel_ms(k, 1, &g, &l);
        for (int r = 0; r < KREPS; r++) t[r] = kernel_ms(k, 1, &g, &l);
        CK(clEnqueueReadBuffer(qp, dout, CL_TRUE, 0, NPIX, out, 0, NULL, NULL));
        for (size_t i = 0; i < NPIX; i++) ref[i] = (unsigned char)abs((int)img[i] - (int)img2[i]);
        snprintf(label, sizeof label, "absdiff u8 vload16/vstore16 %dx%d (kernel)", W, H);
        result("k.absdiff", label, median(t, KREPS) * 1e3, "us", "nv", close_bytes(out, ref, NPIX, 0));
        result("k.absdiff.wall", "  same, wall time per launch", wall_us(k, NULL, 1, &g, &l), "us", "nv", 1);
        clReleaseKernel(k);
    }
    { /* LUT */
        cl_kernel k = kernel(p, "lut4");
        CK(clSetKernelArg(k, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(k, 1, sizeof dlut, &dlut));
        CK(clSetKernelArg(k, 2, sizeof dout, &dout));
        size_t g = NPIX / 4, l = 256;
        kernel_ms(k, 1, &g, &l);
        for (int r = 0; r < KREPS; r++) t[r] = kernel_ms(k, 1, &g, &l);
        CK(clEnqueueReadBuffer(qp, dout, CL_TRUE, 0, NPIX, out, 0, NULL, NULL));
        for (size_t i = 0; i < NPIX; i++) ref[i] = lut[img[i]];
        snprintf(label, sizeof label, "LUT u8 vload4 %dx%d (kernel)", W, H);
        result("k.lut", label, median(t, KREPS) * 1e3, "us", "nv", close_bytes(out, ref, NPIX, 0));
        result("k.lut.wall", "  same, wall time per launch", wall_us(k, NULL, 1, &g, &l), "us", "nv", 1);
        clReleaseKernel(k);
    }
    { /* convertTo */
        cl_kernel k = kernel(p, "convert_scale4");
        float alpha = 1.37f, beta = -21.5f;
        CK(clSetKernelArg(k, 0, sizeof dimg, &dimg));
        CK(clSetKernelArg(k, 1, sizeof dout, &dout));
        CK(clSetKernelArg(k, 2, sizeof alpha, &alpha));
        CK(clSetKernelArg(k, 3, sizeof beta, &beta));
        size_t g = NPIX / 4, l = 256;
        kernel_ms(k, 1, &g, &l);
        for (int r = 0; r < KREPS; r++) t[r] = kernel_ms(k, 1, &g, &l);
        CK(clEnqueueReadBuffer(qp, dout, CL_TRUE, 0, NPIX, out, 0, NULL, NULL));
        for (size_t i = 0; i < NPIX; i++) ref[i] = sat_rte((float)img[i] * alpha + beta);
        snprintf(label, sizeof label, "convertTo u8 convert_float4/uchar4_sat_rte %dx%d", W, H);
        result("k.convert", label, median(t, KREPS) * 1e3, "us", "nv", close_bytes(out, ref, NPIX, 1));
        result("k.convert.wall", "  same, wall time per launch", wall_us(k, NULL, 1, &g, &l), "us", "nv", 1);
        clReleaseKernel(k);
    }
    clReleaseMemObject(dimg); clReleaseMemObject(dimg2); clReleaseMemObject(dout); clReleaseMemObject(dmx);
    clReleaseMemObject(dmy); clReleaseMemObject(dtmp); clReleaseMemObject(dcount); clReleaseMemObject(dlut);
    free(img); free(img2); free(out); free(ref); free(mx); free(my); free(tmp);
}

/* The saturating float -> integer conversions on values at and beyond the edges (NaN, +-inf,
 * halves, the limits): every rounding mode and destination type, scalar and vector, against
 * C's rint/trunc/ceil/floor clamped to the type (NaN -> 0, OpenCL 1.2 6.2.3.3). */
#define SATCONV_SRC \
    "__kernel void satconv(__global const float *x, __global int *o) {\n" \
    "  int i = get_global_id(0); float v = x[i]; __global int *r = o + i * 12;\n" \
    "  r[0] = convert_uchar_sat(v); r[1] = convert_uchar_sat_rte(v); r[2] = convert_uchar_sat_rtz(v);\n" \
    "  r[3] = convert_uchar_sat_rtp(v); r[4] = convert_uchar_sat_rtn(v); r[5] = convert_char_sat_rte(v);\n" \
    "  r[6] = convert_short_sat_rte(v); r[7] = convert_ushort_sat_rtn(v); r[8] = convert_int_sat_rte(v);\n" \
    "  r[9] = (int)convert_uint_sat_rtp(v); r[10] = convert_uchar4_sat_rte((float4)(v)).s2;\n" \
    "  r[11] = convert_short2_sat((float2)(v)).s1;\n" \
    "}\n"
static double sat_ref(double v, int mode, double lo, double hi) {
    if (v != v) return 0;
    v = mode == 0 ? rint(v) : mode == 1 ? trunc(v) : mode == 2 ? ceil(v) : floor(v);
    return v < lo ? lo : v > hi ? hi : v;
}
static void check_satconv(void) {
    static const float xs[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -0.6f, 0.49999997f,
                               126.5f, 127.5f, 128.5f, -128.5f, -129.0f, 254.5f, 255.49f, 255.5f, 256.0f, 1e10f, -1e10f,
                               32767.5f, -32768.6f, 65534.5f, 65535.7f, 2147483520.0f, 2147483648.0f, -2147483904.0f,
                               4294967040.0f, 4294967296.0f, 1e-40f, -1e-40f, 3.3f, -3.7f, 100.5f, 101.5f};
    enum { NX = sizeof xs / sizeof xs[0] };
    /* mode: 0 rte, 1 rtz, 2 rtp, 3 rtn */
    static const struct { int mode; double lo, hi; } col[12] = {
        {1, 0, 255}, {0, 0, 255}, {1, 0, 255}, {2, 0, 255}, {3, 0, 255}, {0, -128, 127}, {0, -32768, 32767},
        {3, 0, 65535}, {0, -2147483648.0, 2147483647.0}, {2, 0, 4294967295.0}, {0, 0, 255}, {1, -32768, 32767}};
    cl_program sp = build(SATCONV_SRC, 0);
    cl_kernel k = kernel(sp, "satconv");
    cl_int err;
    cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof xs, (void *)xs, &err);
    CK(err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, NX * 12 * sizeof(int), NULL, &err);
    CK(err);
    CK(clSetKernelArg(k, 0, sizeof dx, &dx));
    CK(clSetKernelArg(k, 1, sizeof dout, &dout));
    size_t g = NX;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    int got[NX * 12];
    CK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < NX; i++)
        for (int c = 0; c < 12; c++) {
            double r = sat_ref(xs[i], col[c].mode, col[c].lo, col[c].hi);
            int want = c == 9 ? (int)(unsigned)r : (int)r;
            if (got[i * 12 + c] != want) {
                if (bad++ < 10) printf("  satconv: x = %a, column %d: got %d, want %d\n", xs[i], c, got[i * 12 + c], want);
            }
        }
    result("k.satconv.check", "saturating conversions at the edges (mismatches)", bad, "n", "-", bad == 0);
    clReleaseMemObject(dx); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(sp);
}

/* The same from double (PTX's cvt from .f64 gives 1 << (bits - 1) for NaN, not 0: the
 * conversion alone is not OpenCL's _sat there), where the device has cl_khr_fp64. */
#define SATCONVD_SRC \
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" \
    "__kernel void satconvd(__global const double *x, __global int *o) {\n" \
    "  int i = get_global_id(0); double v = x[i]; __global int *r = o + i * 8;\n" \
    "  r[0] = convert_int_sat(v); r[1] = (int)convert_uint_sat_rte(v); r[2] = convert_char_sat(v);\n" \
    "  r[3] = convert_uchar_sat_rtn(v); r[4] = convert_short_sat_rtp(v); r[5] = convert_ushort_sat(v);\n" \
    "  r[6] = convert_int2_sat_rte((double2)(v)).s1; r[7] = convert_uchar4_sat((double4)(v)).s3;\n" \
    "}\n"
static void check_satconvd(void) {
    char ext[4096] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    if (!strstr(ext, "cl_khr_fp64")) {
        printf("  k.satconvd.check skipped: no cl_khr_fp64\n");
        return;
    }
    static const double xs[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, 1.5, -0.5, -0.6, 127.5, -128.5, 255.5,
                                256.0, 32767.5, -32768.6, 65535.5, 2147483647.4, 2147483647.5, -2147483648.6,
                                -2147483649.0, 4294967295.4, 4294967295.5, 1e300, -1e300, 1e-310, 3.3, -3.7};
    enum { NX = sizeof xs / sizeof xs[0] };
    static const struct { int mode; double lo, hi; } col[8] = {
        {1, -2147483648.0, 2147483647.0}, {0, 0, 4294967295.0}, {1, -128, 127}, {3, 0, 255},
        {2, -32768, 32767}, {1, 0, 65535}, {0, -2147483648.0, 2147483647.0}, {1, 0, 255}};
    cl_program sp = build(SATCONVD_SRC, 0);
    cl_kernel k = kernel(sp, "satconvd");
    cl_int err;
    cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof xs, (void *)xs, &err);
    CK(err);
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, NX * 8 * sizeof(int), NULL, &err);
    CK(err);
    CK(clSetKernelArg(k, 0, sizeof dx, &dx));
    CK(clSetKernelArg(k, 1, sizeof dout, &dout));
    size_t g = NX;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    int got[NX * 8];
    CK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < NX; i++)
        for (int c = 0; c < 8; c++) {
            double r = sat_ref(xs[i], col[c].mode, col[c].lo, col[c].hi);
            int want = c == 1 ? (int)(unsigned)r : (int)r;
            if (got[i * 8 + c] != want) {
                if (bad++ < 10) printf("  satconvd: x = %a, column %d: got %d, want %d\n", xs[i], c, got[i * 8 + c], want);
            }
        }
    result("k.satconvd.check", "the same from double (mismatches)", bad, "n", "-", bad == 0);
    clReleaseMemObject(dx); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(sp);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "--print-axpb4")) return fputs(AXPB4_SRC, stdout) < 0;
    if (argc > 1 && !strcmp(argv[1], "--print-source")) return fputs(SRC, stdout) < 0;
    if (argc > 1 && !strcmp(argv[1], "raw")) return raw_main(argc > 2 ? argv[2] : NULL);
    /* APPBENCH_ONLY=launch|ocvseq|kernels: one part only (launch includes ocvseq). */
    const char *only = getenv("APPBENCH_ONLY");
    const char *want = getenv("CL_PLATFORM_NAME");
    if (!want || !*want) want = "cudacl";
    cl_platform_id ps[16], plat = NULL;
    cl_uint np = 0;
    CK(clGetPlatformIDs(16, ps, &np));
    char pname[256] = {0};
    for (cl_uint i = 0; i < np && i < 16; i++) {
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (strstr(pname, want)) { plat = ps[i]; break; }
    }
    if (!plat) DIE("no platform named like '%s'", want);
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
        CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char dname[256] = {0}, pver[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CK(err);
    qp = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    printf("appbench: %s (%s) on %s\n\n", pname, pver, dname);
    printf("| %-54s | %13s | %-4s |\n", "benchmark", "median", "check");
    printf("|%s|%s|%s|\n", "--------------------------------------------------------", "---------------", "------");
    cl_program p = build(SRC, 1);
    if (!only || !strcmp(only, "launch")) bench_launch(p);
    if (!only || !strcmp(only, "launch") || !strcmp(only, "ocvseq")) bench_ocvseq(p);
    if (!only || !strcmp(only, "kernels")) bench_kernels(p);
    if (!only || !strcmp(only, "kernels")) check_satconv();
    if (!only || !strcmp(only, "kernels")) check_satconvd();
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(qp);
    clReleaseContext(ctx);
    printf("\n%s\n", failures ? "SOME RESULTS WRONG" : "all results checked");
    return failures ? 1 : 0;
}
