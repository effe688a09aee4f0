/* IL programs (SPIR-V, cl_khr_il_program / OpenCL 2.1): the queries that report them, and
 * programs made with clCreateProgramWithIL from the SPIR-V of this program's own OpenCL C
 * source (KERNELS below), which the harness compiles with clang and llvm-spirv:
 *
 *   ./il --print-source > k.cl           the source to make SPIR-V from
 *   ./il k.spv                          queries, error codes, builds (the fake CUDA driver)
 *   ./il k.spv gpu                      also runs the kernels and checks their results
 *   ./il                                the queries only (what a device without IL must say)
 *
 * A specialization constant is made here from the module (the constant 1234567 of `ids`
 * becomes OpSpecConstant with SpecId 7), so no SPIR-V tool is needed beyond the translator.
 * Where the device reports no IL (no translator found), the program checks the spec's answers
 * for that case and says so. Prints "il: N passed, M failed" last. */
#include "common.h"
#include <CL/cl_ext.h>
#include <stdint.h>

static const char *KERNELS =
    "typedef struct { int a; float b; } pair_t;\n"
    "float twice(float x) { return 2.0f * x; }\n"
    "kernel void axpy(global const float *x, global float *y, float a, pair_t p) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i] + twice(p.b) + (float)p.a;\n"
    "}\n"
    "kernel void reduce(global const int *in, global int *out, local int *tmp) {\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) atomic_add(out, tmp[0]);\n"
    "}\n"
    "kernel void ids(global uint *out, constant uint *k) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  out[i] = (uint)get_global_id(0) * k[0] + (uint)get_group_id(0) + 1234567u;\n"
    "}\n";

#define SPEC_DEFAULT 1234567u
#define SPEC_ID 7u

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(b, 1, n > 0 ? (size_t)n : 0, f);
    fclose(f);
    return b;
}

/* The module with the 32-bit OpConstant `value` made OpSpecConstant (43 -> 50) and an
 * OpDecorate <id> SpecId `id` (opcode 71, decoration 1) put before its first decoration. */
static uint32_t *with_spec_constant(const uint32_t *w, size_t n, uint32_t value, uint32_t id, size_t *out_n) {
    uint32_t *o = malloc((n + 4) * 4);
    size_t i = 5, first_dec = 0, at = 0;
    uint32_t target = 0;
    memcpy(o, w, 5 * 4);
    at = 5;
    while (i < n) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (count == 0 || i + count > n) break;
        if (op == 71 && !first_dec) first_dec = i;
        if (op == 43 && count == 4 && w[i + 3] == value) target = w[i + 2];
        i += count;
    }
    if (!first_dec || !target) {
        free(o);
        return NULL;
    }
    for (i = 5; i < n;) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (i == first_dec) {
            o[at++] = (4u << 16) | 71u;
            o[at++] = target;
            o[at++] = 1u;
            o[at++] = id;
        }
        memcpy(o + at, w + i, count * 4);
        if (op == 43 && count == 4 && w[i + 3] == value) o[at] = (4u << 16) | 50u;
        at += count;
        i += count;
    }
    *out_n = at;
    return o;
}

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    return 0;
}

static char *device_str(cl_device_info what) {
    size_t sz = 0;
    clGetDeviceInfo(dev, what, 0, NULL, &sz);
    char *s = calloc(sz + 1, 1);
    clGetDeviceInfo(dev, what, sz, s, NULL);
    return s;
}

/* The queries; returns whether the device takes IL. */
static int queries(cl_platform_id plat) {
    char *ilv = device_str(CL_DEVICE_IL_VERSION);
    char *ext = device_str(CL_DEVICE_EXTENSIONS);
    size_t sz = 0;
    clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS, 0, NULL, &sz);
    char *pext = calloc(sz + 1, 1);
    clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS, sz, pext, NULL);
    int il = ilv[0] != 0;
    printf("CL_DEVICE_IL_VERSION \"%s\"\n", ilv);
    CHECK(has_word(ext, "cl_khr_il_program") == il, "device extensions and IL version agree: %s", ext);
    CHECK(has_word(pext, "cl_khr_il_program") == il, "platform extensions and IL version agree: %s", pext);
    size_t n = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_ILS_WITH_VERSION, 0, NULL, &n), CL_SUCCESS);
    cl_name_version *nv = malloc(n + 1);
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_ILS_WITH_VERSION, n, nv, NULL), CL_SUCCESS);
    size_t count = n / sizeof(cl_name_version);
    CHECK((count > 0) == il, "ILS_WITH_VERSION has %zu entries", count);
    for (size_t i = 0; i < count; i++) {
        char want[64];
        snprintf(want, sizeof want, "SPIR-V_%u.%u", CL_VERSION_MAJOR(nv[i].version), CL_VERSION_MINOR(nv[i].version));
        CHECK(strcmp(nv[i].name, "SPIR-V") == 0, "entry %zu is %s", i, nv[i].name);
        CHECK(has_word(ilv, want), "%s in CL_DEVICE_IL_VERSION", want);
    }
    if (il) {
        CHECK(has_word(ilv, "SPIR-V_1.0"), "SPIR-V 1.0 taken: %s", ilv);
        /* the extensions-with-version list names it too */
        EXPECT(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &n), CL_SUCCESS);
        cl_name_version *ev = malloc(n + 1);
        clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, n, ev, NULL);
        int found = 0;
        for (size_t i = 0; i < n / sizeof(cl_name_version); i++)
            found |= strcmp(ev[i].name, "cl_khr_il_program") == 0 && ev[i].version == CL_MAKE_VERSION(1, 0, 0);
        CHECK(found, "cl_khr_il_program 1.0.0 in CL_DEVICE_EXTENSIONS_WITH_VERSION");
        free(ev);
    }
    void *khr = clGetExtensionFunctionAddressForPlatform(plat, "clCreateProgramWithILKHR");
    CHECK((khr != NULL) == il, "clCreateProgramWithILKHR %p", khr);
    free(nv);
    free(ilv);
    free(ext);
    free(pext);
    return il;
}

static cl_program build_il(const void *il, size_t len, const char *opts, cl_int want) {
    cl_int err;
    cl_program p = clCreateProgramWithIL(ctx, il, len, &err);
    CHECK(p != NULL && err == CL_SUCCESS, "clCreateProgramWithIL: %d", err);
    if (!p) return NULL;
    err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    CHECK(err == want, "clBuildProgram: %d, want %d", err, want);
    if (err != CL_SUCCESS && want == CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        printf("build log:\n%s\n", log);
    }
    return p;
}

typedef struct {
    cl_int a;
    cl_float b;
} pair_t;

/* Runs ids on 64 work-items (groups of 16, global offset 0) and checks out[i] = i*3 + i/16 + add. */
static void run_ids(cl_program p, cl_uint add, const char *what) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, "ids", &err);
    CHECK(k != NULL, "%s: ids: %d", what, err);
    if (!k) return;
    cl_uint three = 3, out[64];
    cl_mem o = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    cl_mem kb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof three, &three, &err);
    EXPECT(clSetKernelArg(k, 0, sizeof o, &o), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof kb, &kb), CL_SUCCESS);
    size_t g = 64, l = 16;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
    int bad = 0;
    for (cl_uint i = 0; i < 64; i++) bad += out[i] != i * 3 + i / 16 + add;
    CHECK(bad == 0, "%s: %d wrong ids results (out[5] = %u, want %u)", what, bad, out[5], 5 * 3 + add);
    clReleaseMemObject(o);
    clReleaseMemObject(kb);
    clReleaseKernel(k);
}

static void run_kernels(cl_program p) {
    cl_int err;
    enum { N = 256 };
    float x[N], y[N], r[N];
    cl_int in[N], sum = 0, zero = 0, got = 0;
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f, in[i] = i * 7 - 300, sum += in[i];
    cl_mem xb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem yb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
    cl_mem ib = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem sb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    cl_kernel axpy = clCreateKernel(p, "axpy", &err), reduce = clCreateKernel(p, "reduce", &err);
    float a = 0.5f;
    pair_t pr = {3, 0.25f};
    EXPECT(clSetKernelArg(axpy, 0, sizeof xb, &xb), CL_SUCCESS);
    EXPECT(clSetKernelArg(axpy, 1, sizeof yb, &yb), CL_SUCCESS);
    EXPECT(clSetKernelArg(axpy, 2, sizeof a, &a), CL_SUCCESS);
    EXPECT(clSetKernelArg(axpy, 3, sizeof pr, &pr), CL_SUCCESS);
    size_t g = N, l = 64;
    EXPECT(clEnqueueNDRangeKernel(q, axpy, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += r[i] != 0.5f * (float)i + 1.0f + 0.5f + 3.0f;
    CHECK(bad == 0, "axpy: %d wrong (r[10] = %g)", bad, r[10]);
    EXPECT(clSetKernelArg(reduce, 0, sizeof ib, &ib), CL_SUCCESS);
    EXPECT(clSetKernelArg(reduce, 1, sizeof sb, &sb), CL_SUCCESS);
    EXPECT(clSetKernelArg(reduce, 2, 64 * sizeof(cl_int), NULL), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(q, reduce, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, sb, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL), CL_SUCCESS);
    CHECK(got == sum, "reduce: %d, want %d", got, sum);
    clReleaseKernel(axpy);
    clReleaseKernel(reduce);
    clReleaseMemObject(xb);
    clReleaseMemObject(yb);
    clReleaseMemObject(ib);
    clReleaseMemObject(sb);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--print-source") == 0) {
        fputs(KERNELS, stdout);
        return 0;
    }
    const char *spv = NULL;
    int gpu = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "gpu") == 0) gpu = 1;
        else spv = argv[i];
    }
    cl_platform_id plat = find_platform();
    dev = find_gpu(plat);
    if (!dev) {
        printf("il: skipped: no CUDA device\n");
        return 0;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    int il = queries(plat);
    const char *src = KERNELS;
    cl_program sp = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    EXPECT(clBuildProgram(sp, 1, &dev, "-cl-std=CL3.0", NULL, NULL), CL_SUCCESS);
    size_t ilsz = 99;
    EXPECT(clGetProgramInfo(sp, CL_PROGRAM_IL, 0, NULL, &ilsz), CL_SUCCESS);
    CHECK(ilsz == 0, "a source program's CL_PROGRAM_IL size %zu", ilsz);
    cl_uint v = 1;
    uint32_t bogus[8] = {0xDEADBEEF};
    if (!il) {
        printf("il: the device reports no IL programs (no SPIR-V translator)\n");
        CHECK(clCreateProgramWithIL(ctx, bogus, sizeof bogus, &err) == NULL && err == CL_INVALID_OPERATION,
              "clCreateProgramWithIL without IL support: %d", err);
        EXPECT(clSetProgramSpecializationConstant(sp, 0, sizeof v, &v), CL_INVALID_OPERATION);
        clReleaseProgram(sp);
        return report("il");
    }
    /* Creation errors. */
    CHECK(clCreateProgramWithIL(ctx, NULL, 20, &err) == NULL && err == CL_INVALID_VALUE, "NULL il: %d", err);
    CHECK(clCreateProgramWithIL(ctx, bogus, 0, &err) == NULL && err == CL_INVALID_VALUE, "length 0: %d", err);
    CHECK(clCreateProgramWithIL(ctx, bogus, sizeof bogus, &err) == NULL && err == CL_INVALID_VALUE, "not SPIR-V: %d", err);
    CHECK(clCreateProgramWithIL(NULL, bogus, sizeof bogus, &err) == NULL && err == CL_INVALID_CONTEXT, "no context: %d", err);
    EXPECT(clSetProgramSpecializationConstant(sp, 0, sizeof v, &v), CL_INVALID_PROGRAM);
    EXPECT(clSetProgramSpecializationConstant(NULL, 0, sizeof v, &v), CL_INVALID_PROGRAM);
    clReleaseProgram(sp);
    if (!spv) return report("il");

    size_t len = 0;
    unsigned char *bytes = read_file(spv, &len);
    CHECK(bytes != NULL && len > 20, "read %s", spv);
    if (!bytes) return report("il");

    /* A module the translator refuses (the magic number, then garbage): a failed build with a log. */
    uint32_t junk[16];
    memcpy(junk, bytes, 20);
    for (int i = 5; i < 16; i++) junk[i] = 0xFFFFFFFFu;
    cl_program bad = build_il(junk, sizeof junk, "", CL_BUILD_PROGRAM_FAILURE);
    if (bad) {
        char log[4096] = {0};
        clGetProgramBuildInfo(bad, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        CHECK(strstr(log, "SPIR-V") != NULL, "failed build's log: %s", log);
        cl_build_status st = 0;
        clGetProgramBuildInfo(bad, dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL);
        CHECK(st == CL_BUILD_ERROR, "status %d", st);
        clReleaseProgram(bad);
    }

    /* The program: IL kept, kernels, no argument info even when asked for. */
    cl_program p = build_il(bytes, len, "-cl-kernel-arg-info", CL_SUCCESS);
    if (!p) return report("il");
    size_t got = 0;
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &got), CL_SUCCESS);
    CHECK(got == len, "CL_PROGRAM_IL size %zu, want %zu", got, len);
    unsigned char *back = malloc(len);
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_IL, len, back, NULL), CL_SUCCESS);
    CHECK(memcmp(back, bytes, len) == 0, "CL_PROGRAM_IL returns the module");
    free(back);
    char names[256] = {0};
    EXPECT(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL), CL_SUCCESS);
    CHECK(strcmp(names, "axpy;reduce;ids") == 0, "kernel names %s", names);
    cl_kernel k = clCreateKernel(p, "axpy", &err);
    CHECK(k != NULL, "clCreateKernel: %d", err);
    cl_uint nargs = 0;
    EXPECT(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), CL_SUCCESS);
    CHECK(nargs == 4, "axpy has %u args", nargs);
    cl_kernel_arg_address_qualifier aq;
    EXPECT(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL),
           CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    pair_t pr = {1, 2.0f};
    EXPECT(clSetKernelArg(k, 3, sizeof pr, &pr), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 3, sizeof pr + 4, &pr), CL_INVALID_ARG_SIZE);
    clReleaseKernel(k);
    EXPECT(clSetProgramSpecializationConstant(p, SPEC_ID, sizeof v, &v), CL_INVALID_SPEC_ID);
    if (gpu) run_kernels(p);
    if (gpu) run_ids(p, SPEC_DEFAULT, "plain");

    /* clCreateProgramWithILKHR is the same entry point. */
    typedef cl_program (*create_il_fn)(cl_context, const void *, size_t, cl_int *);
    create_il_fn khr = (create_il_fn)clGetExtensionFunctionAddressForPlatform(plat, "clCreateProgramWithILKHR");
    if (khr) {
        cl_program pk = khr(ctx, bytes, len, &err);
        CHECK(pk != NULL && err == CL_SUCCESS, "clCreateProgramWithILKHR: %d", err);
        if (pk) clReleaseProgram(pk);
    }

    /* Compile and link, with a source object beside the IL one. */
    cl_program ip = clCreateProgramWithIL(ctx, bytes, len, &err);
    EXPECT(clCompileProgram(ip, 1, &dev, "", 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    const char *other = "kernel void other(global int *p) { p[0] = 5; }";
    cl_program op = clCreateProgramWithSource(ctx, 1, &other, NULL, &err);
    EXPECT(clCompileProgram(op, 1, &dev, "", 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_program objs[2] = {ip, op};
    cl_program linked = clLinkProgram(ctx, 1, &dev, "", 2, objs, NULL, NULL, &err);
    CHECK(linked != NULL && err == CL_SUCCESS, "clLinkProgram: %d", err);
    if (linked) {
        memset(names, 0, sizeof names);
        clGetProgramInfo(linked, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
        CHECK(strcmp(names, "axpy;reduce;ids;other") == 0, "linked kernel names %s", names);
        if (gpu) run_ids(linked, SPEC_DEFAULT, "linked");
        clReleaseProgram(linked);
    }
    clReleaseProgram(ip);
    clReleaseProgram(op);

    /* Specialization constants. */
    size_t nw = 0;
    uint32_t *spec = with_spec_constant((const uint32_t *)bytes, len / 4, SPEC_DEFAULT, SPEC_ID, &nw);
    CHECK(spec != NULL, "made a specialization constant");
    if (spec) {
        cl_program s = clCreateProgramWithIL(ctx, spec, nw * 4, &err);
        CHECK(s != NULL, "spec program: %d", err);
        cl_uint val = 1000;
        cl_ulong wide = 1;
        EXPECT(clSetProgramSpecializationConstant(s, SPEC_ID, sizeof wide, &wide), CL_INVALID_VALUE);
        EXPECT(clSetProgramSpecializationConstant(s, SPEC_ID, sizeof val, NULL), CL_INVALID_VALUE);
        EXPECT(clSetProgramSpecializationConstant(s, SPEC_ID + 1, sizeof val, &val), CL_INVALID_SPEC_ID);
        EXPECT(clBuildProgram(s, 1, &dev, "", NULL, NULL), CL_SUCCESS);
        if (gpu) run_ids(s, SPEC_DEFAULT, "spec default");
        EXPECT(clSetProgramSpecializationConstant(s, SPEC_ID, sizeof val, &val), CL_SUCCESS);
        EXPECT(clBuildProgram(s, 1, &dev, "", NULL, NULL), CL_SUCCESS);
        if (gpu) run_ids(s, val, "spec 1000");
        /* The value is in the cache key: the first build's result does not come back. */
        cl_uint val2 = 77;
        EXPECT(clSetProgramSpecializationConstant(s, SPEC_ID, sizeof val2, &val2), CL_SUCCESS);
        EXPECT(clBuildProgram(s, 1, &dev, "", NULL, NULL), CL_SUCCESS);
        if (gpu) run_ids(s, val2, "spec 77");
        size_t ptxsz = 0;
        EXPECT(clGetProgramInfo(s, CL_PROGRAM_BINARY_SIZES, sizeof ptxsz, &ptxsz, NULL), CL_SUCCESS);
        unsigned char *bin = malloc(ptxsz + 1);
        unsigned char *bins[1] = {bin};
        EXPECT(clGetProgramInfo(s, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL), CL_SUCCESS);
        bin[ptxsz] = 0;
        /* 77 is the immediate the PTX adds (mov/add of 77); 1234567 must be gone. */
        int has_default = 0;
        for (size_t i = 0; i + 7 <= ptxsz; i++) has_default |= memcmp(bin + i, "1234567", 7) == 0;
        CHECK(!has_default, "the specialised PTX has no default value");
        free(bin);
        clReleaseProgram(s);
        free(spec);
    }
    clReleaseProgram(p);
    free(bytes);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return report("il");
}
