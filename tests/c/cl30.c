/* OpenCL 3.0 platform and device: the numeric and with-version queries, every optional
 * feature's queries and entry points answering as the 3.0 spec's tables require for a feature a
 * device reports absent (the checks of the Khronos CTS's api/consistency_* tests), the 3.0
 * entry points, and OpenCL C 3.0 builds with the feature macros the device reports.
 * Usage: cl30 [nodevice|gpu]   (nodevice: platform queries only; gpu: also runs C11 atomics) */
#include "common.h"
#include <CL/cl_ext.h>

#define VER(ma, mi, pa) CL_MAKE_VERSION(ma, mi, pa)

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

/* A device query into a malloc'ed buffer (size in *size); NULL with *size 0 for an empty one. */
static void *device_query(cl_device_info what, size_t *size) {
    *size = 12345;
    cl_int err = clGetDeviceInfo(dev, what, 0, NULL, size);
    CHECK(err == CL_SUCCESS, "size of device query 0x%x: %d", what, err);
    if (err != CL_SUCCESS || *size == 0) return NULL;
    void *p = calloc(1, *size + 1);
    err = clGetDeviceInfo(dev, what, *size, p, NULL);
    CHECK(err == CL_SUCCESS, "device query 0x%x: %d", what, err);
    if (*size >= 1) {
        /* One byte short: CL_INVALID_VALUE (the CTS's param_value_size checks). */
        EXPECT(clGetDeviceInfo(dev, what, *size - 1, p, NULL), CL_INVALID_VALUE);
    }
    return p;
}

static cl_ulong dev_ulong(cl_device_info what) {
    cl_ulong v = 0xdeadbeef;
    EXPECT(clGetDeviceInfo(dev, what, sizeof v, &v, NULL), CL_SUCCESS);
    return v;
}

static cl_uint dev_uint(cl_device_info what) {
    cl_uint v = 0xdeadbeef;
    size_t sz = 0;
    EXPECT(clGetDeviceInfo(dev, what, sizeof v, &v, &sz), CL_SUCCESS);
    CHECK(sz == sizeof v, "query 0x%x is %zu bytes, want a cl_uint", what, sz);
    return v;
}

static size_t dev_size(cl_device_info what) {
    size_t v = 12345, sz = 0;
    EXPECT(clGetDeviceInfo(dev, what, sizeof v, &v, &sz), CL_SUCCESS);
    CHECK(sz == sizeof v, "query 0x%x is %zu bytes, want a size_t", what, sz);
    return v;
}

static cl_bool dev_bool(cl_device_info what) {
    cl_bool v = 7;
    size_t sz = 0;
    EXPECT(clGetDeviceInfo(dev, what, sizeof v, &v, &sz), CL_SUCCESS);
    CHECK(sz == sizeof v && (v == CL_TRUE || v == CL_FALSE), "query 0x%x: %u (%zu bytes)", what, v, sz);
    return v;
}

/* Whether a space-separated list holds `name` as a whole word. */
static int has_word(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    }
    return 0;
}

static int count_words(const char *list) {
    int n = 0, in = 0;
    for (const char *p = list; *p; p++) {
        if (*p != ' ' && !in) n++;
        in = *p != ' ';
    }
    return n;
}

/* A with-version list against its string form: the same names, each once, at their versions. */
static void check_with_version(const char *what, const cl_name_version *v, size_t size, const char *names) {
    CHECK(size % sizeof(cl_name_version) == 0, "%s: %zu bytes", what, size);
    size_t n = size / sizeof(cl_name_version);
    CHECK((int)n == count_words(names), "%s: %zu entries, %d names in \"%s\"", what, n, count_words(names), names);
    for (size_t i = 0; i < n; i++) {
        CHECK(memchr(v[i].name, 0, CL_NAME_VERSION_MAX_NAME_SIZE) != NULL, "%s: unterminated name", what);
        CHECK(has_word(names, v[i].name), "%s: %s is not in \"%s\"", what, v[i].name, names);
        /* Each at its specification's version: 1.0.0, except cl_ext_buffer_device_address 1.0.2
         * and the provisional cl_khr_command_buffer 0.9.8. */
        cl_version want = !strcmp(v[i].name, "cl_ext_buffer_device_address") ? VER(1, 0, 2)
                          : !strcmp(v[i].name, "cl_khr_command_buffer")      ? VER(0, 9, 8)
                          : !strcmp(v[i].name, "cl_khr_command_buffer_mutable_dispatch") ? VER(0, 9, 5)
                                                                             : VER(1, 0, 0);
        CHECK(v[i].version == want, "%s: %s version 0x%x", what, v[i].name, v[i].version);
    }
}

static void platform_queries(void) {
    char version[256] = {0}, ext[1024] = {0};
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof version, version, NULL), CL_SUCCESS);
    CHECK(strncmp(version, "OpenCL 3.0 ", 11) == 0, "platform version \"%s\"", version);
    cl_version nv = 0;
    size_t sz = 0;
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_NUMERIC_VERSION, sizeof nv, &nv, &sz), CL_SUCCESS);
    CHECK(nv == VER(3, 0, 0) && sz == sizeof nv, "numeric version 0x%x (%zu bytes)", nv, sz);
    CHECK(CL_VERSION_MAJOR(nv) == 3 && CL_VERSION_MINOR(nv) == 0, "numeric version 0x%x", nv);
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_NUMERIC_VERSION, sizeof nv - 1, &nv, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS, sizeof ext, ext, NULL), CL_SUCCESS);
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, NULL, &sz), CL_SUCCESS);
    cl_name_version *v = calloc(1, sz + 1);
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sz, v, NULL), CL_SUCCESS);
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sz - 1, v, NULL), CL_INVALID_VALUE);
    check_with_version("platform extensions", v, sz, ext);
    free(v);
    cl_ulong res = 0;
    EXPECT(clGetPlatformInfo(plat, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof res, &res, NULL), CL_SUCCESS);
    CHECK(res == 1, "host timer resolution %llu ns", (unsigned long long)res);
    EXPECT(clGetPlatformInfo(plat, 0x0908, sizeof res, &res, NULL), CL_INVALID_VALUE);
}

static void device_versions(void) {
    char s[256] = {0};
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof s, s, NULL), CL_SUCCESS);
    CHECK(strncmp(s, "OpenCL 3.0 ", 11) == 0, "device version \"%s\"", s);
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_VERSION, sizeof s, s, NULL), CL_SUCCESS);
    CHECK(strcmp(s, "OpenCL C 1.2 ") == 0, "OpenCL C version \"%s\" (3.0: the highest fully compatible)", s);
    CHECK(dev_uint(CL_DEVICE_NUMERIC_VERSION) == VER(3, 0, 0), "device numeric version");
    char *ext = NULL;
    size_t sz, esz;
    ext = device_query(CL_DEVICE_EXTENSIONS, &esz);
    cl_name_version *v = device_query(CL_DEVICE_EXTENSIONS_WITH_VERSION, &sz);
    check_with_version("device extensions", v, sz, ext ? ext : "");
    free(v);

    v = device_query(CL_DEVICE_OPENCL_C_ALL_VERSIONS, &sz);
    int seen10 = 0, seen11 = 0, seen12 = 0, seen20 = 0, seen30 = 0;
    for (size_t i = 0; i < sz / sizeof *v; i++) {
        CHECK(strcmp(v[i].name, "OpenCL C") == 0, "OpenCL C version named \"%s\"", v[i].name);
        seen10 |= v[i].version == VER(1, 0, 0);
        seen11 |= v[i].version == VER(1, 1, 0);
        seen12 |= v[i].version == VER(1, 2, 0);
        seen20 |= CL_VERSION_MAJOR(v[i].version) == 2;
        seen30 |= v[i].version == VER(3, 0, 0);
    }
    CHECK(seen10 && seen11 && seen12 && seen30 && !seen20, "OpenCL C versions: 1.0 %d 1.1 %d 1.2 %d 2.x %d 3.0 %d",
          seen10, seen11, seen12, seen20, seen30);
    free(v);

    /* The features: each 3.0.0; the ones tied to a query present exactly when it says so. */
    v = device_query(CL_DEVICE_OPENCL_C_FEATURES, &sz);
    size_t nf = sz / sizeof *v;
    int images = 0, image3d = 0, fp64 = 0, fp16 = 0, subgroups = 0, int64 = 0, acq_rel = 0, seq_cst = 0, scope_dev = 0, scope_all = 0;
    for (size_t i = 0; i < nf; i++) {
        CHECK(v[i].version == VER(3, 0, 0), "%s at 0x%x", v[i].name, v[i].version);
        CHECK(strncmp(v[i].name, "__opencl_c_", 11) == 0, "feature %s", v[i].name);
        images |= !strcmp(v[i].name, "__opencl_c_images");
        image3d |= !strcmp(v[i].name, "__opencl_c_3d_image_writes");
        fp64 |= !strcmp(v[i].name, "__opencl_c_fp64");
        fp16 |= !strcmp(v[i].name, "__opencl_c_fp16");
        subgroups |= !strcmp(v[i].name, "__opencl_c_subgroups");
        int64 |= !strcmp(v[i].name, "__opencl_c_int64");
        acq_rel |= !strcmp(v[i].name, "__opencl_c_atomic_order_acq_rel");
        seq_cst |= !strcmp(v[i].name, "__opencl_c_atomic_order_seq_cst");
        scope_dev |= !strcmp(v[i].name, "__opencl_c_atomic_scope_device");
        scope_all |= !strcmp(v[i].name, "__opencl_c_atomic_scope_all_devices");
        const char *absent[] = {"__opencl_c_generic_address_space", "__opencl_c_pipes", "__opencl_c_device_enqueue",
                                "__opencl_c_program_scope_global_variables", "__opencl_c_read_write_images",
                                "__opencl_c_work_group_collective_functions"};
        for (size_t j = 0; j < sizeof absent / sizeof *absent; j++)
            CHECK(strcmp(v[i].name, absent[j]) != 0, "%s reported, but the device lacks it", absent[j]);
    }
    CHECK(images == (dev_bool(CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE), "__opencl_c_images vs CL_DEVICE_IMAGE_SUPPORT");
    CHECK(image3d == has_word(ext, "cl_khr_3d_image_writes"), "__opencl_c_3d_image_writes");
    CHECK(fp64 == has_word(ext, "cl_khr_fp64"), "__opencl_c_fp64 vs cl_khr_fp64");
    CHECK(fp16 == has_word(ext, "cl_khr_fp16"), "__opencl_c_fp16 vs cl_khr_fp16");
    CHECK(subgroups == has_word(ext, "cl_khr_subgroups") && subgroups == (dev_uint(CL_DEVICE_MAX_NUM_SUB_GROUPS) > 0),
          "__opencl_c_subgroups vs cl_khr_subgroups and CL_DEVICE_MAX_NUM_SUB_GROUPS");
    CHECK(int64, "FULL_PROFILE: __opencl_c_int64");
    cl_device_atomic_capabilities mem = dev_ulong(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    cl_device_atomic_capabilities fence = dev_ulong(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    CHECK(acq_rel == !!(mem & CL_DEVICE_ATOMIC_ORDER_ACQ_REL), "__opencl_c_atomic_order_acq_rel");
    CHECK(seq_cst == !!(mem & CL_DEVICE_ATOMIC_ORDER_SEQ_CST), "__opencl_c_atomic_order_seq_cst");
    CHECK(scope_dev == !!(mem & CL_DEVICE_ATOMIC_SCOPE_DEVICE), "__opencl_c_atomic_scope_device");
    CHECK(scope_all == !!(mem & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES), "__opencl_c_atomic_scope_all_devices");
    free(v);
    free(ext);

    /* The 3.0 minimums and the implications the CTS's consistency_memory_model checks. */
    cl_device_atomic_capabilities caps[2] = {mem, fence};
    cl_device_atomic_capabilities need[2] = {CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP,
                                             CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                                 CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP};
    for (int i = 0; i < 2; i++) {
        cl_device_atomic_capabilities c = caps[i];
        CHECK((c & need[i]) == need[i], "atomic capabilities 0x%llx lack 0x%llx", (unsigned long long)c,
              (unsigned long long)need[i]);
        CHECK(!(c & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) || (c & CL_DEVICE_ATOMIC_SCOPE_DEVICE), "all devices => device");
        CHECK(!(c & CL_DEVICE_ATOMIC_SCOPE_DEVICE) || (c & CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP), "device => work group");
        CHECK(!(c & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) || (c & CL_DEVICE_ATOMIC_ORDER_ACQ_REL), "seq_cst => acq_rel");
        CHECK(!(c & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) || (c & CL_DEVICE_ATOMIC_ORDER_RELAXED), "acq_rel => relaxed");
    }

    /* IL programs: SPIR-V where cudacl found a translator (tests/c/il.c checks them), else
     * absent ("" of size 1, an empty list). Built-in kernels: absent. */
    size_t ilsz = 0;
    int il = device_has_il(dev);
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_IL_VERSION, 0, NULL, &ilsz), CL_SUCCESS);
    CHECK(il ? ilsz > 1 : ilsz == 1, "CL_DEVICE_IL_VERSION size %zu", ilsz);
    free(device_query(CL_DEVICE_ILS_WITH_VERSION, &sz));
    CHECK(il ? sz >= sizeof(cl_name_version) : sz == 0, "CL_DEVICE_ILS_WITH_VERSION: %zu bytes", sz);
    free(device_query(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &sz));
    CHECK(sz == 0, "CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: %zu bytes", sz);

    /* The remaining 3.0 queries. */
    CHECK(dev_bool(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT) == CL_FALSE, "non-uniform work-groups");
    CHECK(dev_bool(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT) == CL_FALSE, "work-group collectives");
    CHECK(dev_bool(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT) == CL_FALSE, "generic address space");
    CHECK(dev_ulong(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES) == 0, "device enqueue");
    CHECK(dev_bool(CL_DEVICE_PIPE_SUPPORT) == CL_FALSE, "pipes");
    size_t mult = dev_size(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    CHECK(mult == 32, "preferred work-group size multiple %zu (a warp)", mult);
    char conf[64] = {0};
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, sizeof conf, conf, NULL), CL_SUCCESS);
    int y, m, d, n;
    CHECK(sscanf(conf, "v%4d-%2d-%2d-%2d", &y, &m, &d, &n) == 4, "conformance version \"%s\"", conf);
    CHECK(dev_ulong(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE, "host queue properties");
    /* cl_khr_fp16: the half configuration's minimum (3.0: round to nearest or to zero, INF/NaN)
     * and the half vector widths, exactly when the extension is reported. */
    char exts[2048] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof exts, exts, NULL);
    if (has_word(exts, "cl_khr_fp16")) {
        cl_device_fp_config half = dev_ulong(CL_DEVICE_HALF_FP_CONFIG);
        CHECK((half & CL_FP_INF_NAN) && (half & (CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO)), "half config 0x%llx",
              (unsigned long long)half);
        CHECK(dev_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF) > 0 && dev_uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF) > 0,
              "half vector widths");
    } else {
        /* The CTS's consistency_requirements_fp16: the query is then CL_INVALID_VALUE. */
        cl_device_fp_config half = 0;
        EXPECT(clGetDeviceInfo(dev, CL_DEVICE_HALF_FP_CONFIG, sizeof half, &half, NULL), CL_INVALID_VALUE);
        CHECK(dev_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF) == 0, "no cl_khr_fp16: half vector width 0");
    }
    EXPECT(clGetDeviceInfo(dev, 0x1073, 4, &n, NULL), CL_INVALID_VALUE);
}

static const char *kernel_src = "__kernel void test(__global int *dst) { dst[0] = 0; }\n";

static cl_program build(const char *src, const char *opts, cl_int *status) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err == CL_SUCCESS, "create program: %d", err);
    *status = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    if (*status != CL_SUCCESS && *status != CL_INVALID_BUILD_OPTIONS) {
        char log[4096] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("build log (%s):\n%s\n", opts ? opts : "", log);
    }
    return p;
}

/* The api/consistency_* tests of the CTS, for every feature the device reports absent. */
static void absent_features(void) {
    cl_int err, st;
    cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    cl_program prog = build(kernel_src, NULL, &st);
    CHECK(st == CL_SUCCESS, "build: %d", st);
    cl_kernel kernel = clCreateKernel(prog, "test", &err);
    CHECK(err == CL_SUCCESS, "kernel: %d", err);

    /* SVM: coarse-grain buffers only (tests/c/devptr.c checks what they do). */
    CHECK(dev_ulong(CL_DEVICE_SVM_CAPABILITIES) == CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, "SVM capabilities %llx",
          (unsigned long long)dev_ulong(CL_DEVICE_SVM_CAPABILITIES));
    cl_bool b = CL_TRUE;
    EXPECT(clGetMemObjectInfo(mem, CL_MEM_USES_SVM_POINTER, sizeof b, &b, NULL), CL_SUCCESS);
    CHECK(b == CL_FALSE, "CL_MEM_USES_SVM_POINTER");
    CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 16, 0) == NULL, "fine-grain clSVMAlloc");
    CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 16, 0) == NULL,
          "SVM atomics");
    void *svm = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 16, 0);
    CHECK(svm != NULL, "coarse-grain clSVMAlloc");
    EXPECT(clSetKernelArgSVMPointer(kernel, 0, svm), CL_SUCCESS);
    EXPECT(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof svm, &svm), CL_SUCCESS);
    /* 0 and NULL unset the list (OpenCL 2.0); a size without a list, or a list without one, is wrong. */
    EXPECT(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL), CL_SUCCESS);
    EXPECT(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof svm, NULL), CL_INVALID_VALUE);
    EXPECT(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, &svm), CL_INVALID_VALUE);
    /* A buffer over an SVM allocation may not be larger than it: CL_INVALID_BUFFER_SIZE. */
    cl_mem over = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 32, svm, &err);
    CHECK(over == NULL && err == CL_INVALID_BUFFER_SIZE, "buffer beyond its SVM allocation: %d", err);
    cl_mem inside = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 16, svm, &err);
    CHECK(inside != NULL && err == CL_SUCCESS, "buffer over its SVM allocation: %d", err);
    if (inside) clReleaseMemObject(inside);
    cl_bool fgs = CL_TRUE;
    EXPECT(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof fgs, &fgs),
           CL_INVALID_OPERATION);
    clSVMFree(ctx, svm);
    EXPECT(clSetKernelArg(kernel, 0, sizeof mem, &mem), CL_SUCCESS);

    /* Device-side enqueue */
    CHECK(dev_ulong(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES) == 0, "on-device queue properties");
    CHECK(dev_uint(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE) == 0, "on-device preferred size");
    CHECK(dev_uint(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE) == 0, "on-device max size");
    CHECK(dev_uint(CL_DEVICE_MAX_ON_DEVICE_QUEUES) == 0, "on-device queues");
    CHECK(dev_uint(CL_DEVICE_MAX_ON_DEVICE_EVENTS) == 0, "on-device events");
    cl_uint u = 0;
    EXPECT(clGetCommandQueueInfo(queue, CL_QUEUE_SIZE, sizeof u, &u, NULL), CL_INVALID_COMMAND_QUEUE);
    cl_command_queue q = (cl_command_queue)1;
    EXPECT(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE_DEFAULT, sizeof q, &q, NULL), CL_SUCCESS);
    CHECK(q == NULL, "CL_QUEUE_DEVICE_DEFAULT");
    EXPECT(clSetDefaultDeviceCommandQueue(ctx, dev, NULL), CL_INVALID_OPERATION);
    EXPECT(clSetDefaultDeviceCommandQueue(NULL, dev, NULL), CL_INVALID_CONTEXT);
    EXPECT(clSetDefaultDeviceCommandQueue(ctx, NULL, NULL), CL_INVALID_DEVICE);
    cl_queue_properties on_dev[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    clCreateCommandQueueWithProperties(ctx, dev, on_dev, &err);
    CHECK(err == CL_INVALID_QUEUE_PROPERTIES, "on-device queue: %d", err);

    /* Pipes */
    CHECK(dev_uint(CL_DEVICE_MAX_PIPE_ARGS) == 0, "pipe args");
    CHECK(dev_uint(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS) == 0, "pipe reservations");
    CHECK(dev_uint(CL_DEVICE_PIPE_MAX_PACKET_SIZE) == 0, "pipe packet size");
    CHECK(clCreatePipe(ctx, CL_MEM_HOST_NO_ACCESS, 4, 4, NULL, &err) == NULL && err == CL_INVALID_OPERATION,
          "clCreatePipe: %d", err);
    EXPECT(clGetPipeInfo(mem, CL_PIPE_PACKET_SIZE, sizeof u, &u, NULL), CL_INVALID_MEM_OBJECT);

    /* Program-scope global variables */
    CHECK(dev_size(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) == 0, "max global variable size");
    CHECK(dev_size(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE) == 0, "global variable preferred size");
    size_t sz = 12345;
    EXPECT(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, sizeof sz, &sz, NULL),
           CL_SUCCESS);
    CHECK(sz == 0, "program global variable size %zu", sz);

    /* Non-uniform work-groups: OpenCL 1.2's rule stays. */
    EXPECT(clSetKernelArg(kernel, 0, sizeof mem, &mem), CL_SUCCESS);
    size_t gws[3] = {3, 3, 3}, lws[3] = {2, 2, 2};
    EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, gws, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, gws, lws, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    gws[0] = 2;
    EXPECT(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, gws, lws, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    gws[1] = 2;
    EXPECT(clEnqueueNDRangeKernel(queue, kernel, 3, NULL, gws, lws, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);

    /* Read-write images, depth images, 3D image writes: formats against the queries. */
    cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE2D,
                                  CL_MEM_OBJECT_IMAGE3D,       CL_MEM_OBJECT_IMAGE1D_ARRAY,  CL_MEM_OBJECT_IMAGE2D_ARRAY};
    CHECK(dev_uint(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS) == 0, "read-write image args");
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        cl_uint nf = 99;
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_KERNEL_READ_AND_WRITE, types[i], 0, NULL, &nf), CL_SUCCESS);
        CHECK(nf == 0, "read-and-write formats of type 0x%x: %u", types[i], nf);
    }
    cl_mem_flags wflags[] = {CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE, CL_MEM_KERNEL_READ_AND_WRITE};
    cl_uint total3d = 0;
    for (int i = 0; i < 3; i++) {
        cl_uint nf = 0;
        EXPECT(clGetSupportedImageFormats(ctx, wflags[i], CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf), CL_SUCCESS);
        cl_image_format *f = calloc(nf + 1, sizeof *f);
        EXPECT(clGetSupportedImageFormats(ctx, wflags[i], CL_MEM_OBJECT_IMAGE2D, nf, f, NULL), nf ? CL_SUCCESS : CL_INVALID_VALUE);
        for (cl_uint j = 0; j < nf; j++) CHECK(f[j].image_channel_order != CL_DEPTH, "a CL_DEPTH format");
        free(f);
        EXPECT(clGetSupportedImageFormats(ctx, wflags[i], CL_MEM_OBJECT_IMAGE3D, 0, NULL, &nf), CL_SUCCESS);
        total3d += nf;
    }
    char ext[2048] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    CHECK(!has_word(ext, "cl_khr_depth_images"), "cl_khr_depth_images without CL_DEPTH formats");
    CHECK((total3d > 0) == has_word(ext, "cl_khr_3d_image_writes"), "3D image write formats %u", total3d);

    /* 2D images from buffers */
    CHECK(dev_uint(CL_DEVICE_IMAGE_PITCH_ALIGNMENT) == 0, "image pitch alignment");
    CHECK(dev_uint(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT) == 0, "image base address alignment");
    CHECK(!has_word(ext, "cl_khr_image2d_from_buffer"), "cl_khr_image2d_from_buffer");
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 2;
    desc.image_height = 2;
    desc.mem_object = mem;
    CHECK(clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err) == NULL && err == CL_INVALID_OPERATION,
          "2D image from a buffer: %d", err);
    CHECK(clCreateImageWithProperties(ctx, NULL, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err) == NULL &&
              err == CL_INVALID_OPERATION,
          "2D image from a buffer (with properties): %d", err);

    /* IL programs */
    size_t ilsz = 99;
    EXPECT(clGetProgramInfo(prog, CL_PROGRAM_IL, 0, NULL, &ilsz), CL_SUCCESS);
    CHECK(ilsz == 0, "CL_PROGRAM_IL size %zu", ilsz);
    cl_uint bogus = 0xDEADBEEF;
    int il = device_has_il(dev);
    CHECK(clCreateProgramWithIL(ctx, &bogus, sizeof bogus, &err) == NULL &&
              err == (il ? CL_INVALID_VALUE : CL_INVALID_OPERATION),
          "clCreateProgramWithIL: %d", err);
    cl_uint spec = 42;
    EXPECT(clSetProgramSpecializationConstant(prog, 0, sizeof spec, &spec), il ? CL_INVALID_PROGRAM : CL_INVALID_OPERATION);

    /* Subgroups (cl_khr_subgroups; warps of 32): the 3.0 queries and clGetKernelSubGroupInfo. */
    size_t maxwg = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL), CL_SUCCESS);
    CHECK(dev_uint(CL_DEVICE_MAX_NUM_SUB_GROUPS) == (maxwg + 31) / 32, "CL_DEVICE_MAX_NUM_SUB_GROUPS %u",
          dev_uint(CL_DEVICE_MAX_NUM_SUB_GROUPS));
    CHECK(dev_bool(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) == CL_TRUE, "subgroup forward progress");
    const char *sg_exts[] = {"cl_khr_subgroups", "cl_khr_subgroup_extended_types", "cl_khr_subgroup_non_uniform_vote",
                             "cl_khr_subgroup_ballot", "cl_khr_subgroup_non_uniform_arithmetic",
                             "cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
                             "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_rotate"};
    for (size_t i = 0; i < sizeof sg_exts / sizeof *sg_exts; i++) CHECK(has_word(ext, sg_exts[i]), "%s", sg_exts[i]);
    size_t kwg = 0;
    EXPECT(clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL), CL_SUCCESS);
    sz = 0;
    EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof sz, &sz, NULL), CL_SUCCESS);
    CHECK(sz == (kwg + 31) / 32, "CL_KERNEL_MAX_NUM_SUB_GROUPS %zu (work-group size %zu)", sz, kwg);
    sz = 99;
    EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL, sizeof sz, &sz, NULL),
           CL_SUCCESS);
    CHECK(sz == 0, "CL_KERNEL_COMPILE_NUM_SUB_GROUPS %zu", sz);
    {
        /* local size -> (max sub-group size, sub-group count) */
        size_t shapes[][3] = {{32, 1, 1}, {64, 1, 1}, {48, 1, 1}, {100, 1, 1}, {7, 1, 1}, {8, 4, 1}, {5, 3, 2}, {16, 8, 2}};
        size_t want[][2] = {{32, 1}, {32, 2}, {32, 2}, {32, 4}, {7, 1}, {32, 1}, {30, 1}, {32, 8}};
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            size_t dims = shapes[i][2] > 1 ? 3 : shapes[i][1] > 1 ? 2 : 1, got = 0, size_ret = 0;
            EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                           dims * sizeof(size_t), shapes[i], sizeof got, &got, &size_ret),
                   CL_SUCCESS);
            CHECK(got == want[i][0] && size_ret == sizeof(size_t), "max sub-group size for %zux%zux%zu: %zu",
                  shapes[i][0], shapes[i][1], shapes[i][2], got);
            EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, dims * sizeof(size_t),
                                           shapes[i], sizeof got, &got, NULL),
                   CL_SUCCESS);
            CHECK(got == want[i][1], "sub-group count for %zux%zux%zu: %zu", shapes[i][0], shapes[i][1], shapes[i][2],
                  got);
        }
        size_t count = 3, local[3] = {9, 9, 9}, size_ret = 0;
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count, &count,
                                       sizeof local, local, &size_ret),
               CL_SUCCESS);
        CHECK(local[0] == 96 && local[1] == 1 && local[2] == 1 && size_ret == sizeof local, "local size for 3: %zu %zu %zu",
              local[0], local[1], local[2]);
        count = kwg / 32 + 1; /* more than a work-group holds: zeros */
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count, &count,
                                       sizeof local, local, NULL),
               CL_SUCCESS);
        CHECK(local[0] == 0 && local[1] == 0 && local[2] == 0, "local size for %zu: %zu %zu %zu", count, local[0],
              local[1], local[2]);
        /* Errors: the input missing or of a wrong size, an unknown name, a short output. */
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 0, NULL, sizeof sz, &sz,
                                       NULL),
               CL_INVALID_VALUE);
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 4 * sizeof(size_t),
                                       shapes[0], sizeof sz, &sz, NULL),
               CL_INVALID_VALUE);
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 0, NULL, sizeof local,
                                       local, NULL),
               CL_INVALID_VALUE);
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, 1, &sz, NULL),
               CL_INVALID_VALUE);
        EXPECT(clGetKernelSubGroupInfo(kernel, dev, 0x12345, 0, NULL, sizeof sz, &sz, NULL), CL_INVALID_VALUE);
        /* The extension's entry point is the same function. */
        CHECK(clGetExtensionFunctionAddressForPlatform(plat, "clGetKernelSubGroupInfoKHR") != NULL,
              "clGetKernelSubGroupInfoKHR");
    }
    EXPECT(clGetKernelSubGroupInfo(NULL, dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof sz, &sz, NULL),
           CL_INVALID_KERNEL);
    EXPECT(clGetKernelSubGroupInfo(kernel, (cl_device_id)kernel, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof sz,
                                   &sz, NULL),
           CL_INVALID_DEVICE);

    /* Program constructors and destructors */
    b = CL_TRUE;
    EXPECT(clGetProgramInfo(prog, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof b, &b, NULL), CL_SUCCESS);
    CHECK(b == CL_FALSE, "ctors present");
    b = CL_TRUE;
    EXPECT(clGetProgramInfo(prog, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, sizeof b, &b, NULL), CL_SUCCESS);
    CHECK(b == CL_FALSE, "dtors present");

    /* Device and host timers (present: one nanosecond clock). */
    cl_ulong dt0 = 0, ht0 = 0, dt1 = 0, ht1 = 0, h = 0;
    EXPECT(clGetDeviceAndHostTimer(dev, &dt0, &ht0), CL_SUCCESS);
    EXPECT(clGetHostTimer(dev, &h), CL_SUCCESS);
    EXPECT(clGetDeviceAndHostTimer(dev, &dt1, &ht1), CL_SUCCESS);
    CHECK(dt0 > 0 && ht0 <= h && h <= ht1 && dt0 <= dt1, "timers %llu %llu %llu", (unsigned long long)ht0,
          (unsigned long long)h, (unsigned long long)ht1);
    EXPECT(clGetDeviceAndHostTimer(dev, NULL, &ht0), CL_INVALID_VALUE);
    EXPECT(clGetDeviceAndHostTimer(dev, &dt0, NULL), CL_INVALID_VALUE);
    EXPECT(clGetHostTimer(dev, NULL), CL_INVALID_VALUE);
    EXPECT(clGetHostTimer(NULL, &h), CL_INVALID_DEVICE);
    EXPECT(clGetDeviceAndHostTimer((cl_device_id)ctx, &dt0, &ht0), CL_INVALID_DEVICE);

    clReleaseKernel(kernel);
    clReleaseProgram(prog);
    clReleaseMemObject(mem);
}

static int destructor_order[4], destructor_calls;
static void CL_CALLBACK context_destructor(cl_context c, void *data) {
    (void)c;
    if (destructor_calls < 4) destructor_order[destructor_calls] = (int)(size_t)data;
    destructor_calls++;
}
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* clSetProgramReleaseCallback (3.0 deprecates it) */
static void CL_CALLBACK program_callback(cl_program p, void *data) {
    (void)p;
    (void)data;
}

/* The 3.0 entry points that work. */
static void entry_points(void) {
    cl_int err;
    /* clCreateBufferWithProperties and CL_MEM_PROPERTIES */
    cl_mem_properties none[] = {0}, bad[] = {0x1234, 1, 0};
    size_t sz = 99;
    cl_mem m = clCreateBufferWithProperties(ctx, NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(m && err == CL_SUCCESS, "buffer with NULL properties: %d", err);
    EXPECT(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz == 0, "CL_MEM_PROPERTIES of a NULL list: %zu bytes", sz);
    clReleaseMemObject(m);
    m = clCreateBufferWithProperties(ctx, none, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(m && err == CL_SUCCESS, "buffer with empty properties: %d", err);
    cl_mem_properties got[4] = {7, 7, 7, 7};
    EXPECT(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof got, got, &sz), CL_SUCCESS);
    CHECK(sz == sizeof(cl_mem_properties) && got[0] == 0, "CL_MEM_PROPERTIES of {0}: %zu bytes", sz);
    clReleaseMemObject(m);
    CHECK(clCreateBufferWithProperties(ctx, bad, CL_MEM_READ_WRITE, 64, NULL, &err) == NULL && err == CL_INVALID_PROPERTY,
          "unknown buffer property: %d", err);
    CHECK(clCreateBufferWithProperties(NULL, none, CL_MEM_READ_WRITE, 64, NULL, &err) == NULL && err == CL_INVALID_CONTEXT,
          "buffer with properties, no context: %d", err);
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 4;
    desc.image_height = 4;
    m = clCreateImageWithProperties(ctx, none, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK(m && err == CL_SUCCESS, "image with properties: %d", err);
    EXPECT(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof got, got, &sz), CL_SUCCESS);
    CHECK(sz == sizeof(cl_mem_properties), "image CL_MEM_PROPERTIES: %zu bytes", sz);
    clReleaseMemObject(m);
    CHECK(clCreateImageWithProperties(ctx, bad, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err) == NULL &&
              err == CL_INVALID_PROPERTY,
          "unknown image property: %d", err);

    /* clCreateCommandQueueWithProperties and CL_QUEUE_PROPERTIES_ARRAY */
    cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, qp, &err);
    CHECK(q && err == CL_SUCCESS, "queue with properties: %d", err);
    cl_queue_properties qgot[4] = {0};
    EXPECT(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof qgot, qgot, &sz), CL_SUCCESS);
    CHECK(sz == sizeof qp && memcmp(qgot, qp, sizeof qp) == 0, "CL_QUEUE_PROPERTIES_ARRAY: %zu bytes", sz);
    EXPECT(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof qp - 1, qgot, NULL), CL_INVALID_VALUE);
    cl_event ev;
    EXPECT(clEnqueueMarkerWithWaitList(q, 0, NULL, &ev), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_ulong end = 0, complete = 0;
    EXPECT(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL), CL_SUCCESS);
    EXPECT(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_COMPLETE, sizeof complete, &complete, NULL), CL_SUCCESS);
    CHECK(complete >= end && end > 0, "CL_PROFILING_COMMAND_COMPLETE %llu, end %llu", (unsigned long long)complete,
          (unsigned long long)end);
    clReleaseEvent(ev);
    clReleaseCommandQueue(q);
    EXPECT(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz == 0, "CL_QUEUE_PROPERTIES_ARRAY of clCreateCommandQueue's queue: %zu bytes", sz);
    cl_queue_properties dup[] = {CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PROPERTIES, 0, 0};
    CHECK(clCreateCommandQueueWithProperties(ctx, dev, dup, &err) == NULL && err == CL_INVALID_VALUE,
          "duplicate queue property: %d", err);

    /* clCloneKernel */
    cl_int st;
    cl_program p = build(kernel_src, NULL, &st);
    cl_kernel k = clCreateKernel(p, "test", &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    EXPECT(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
    cl_kernel k2 = clCloneKernel(k, &err);
    CHECK(k2 && err == CL_SUCCESS, "clCloneKernel: %d", err);
    char name[64] = {0};
    EXPECT(clGetKernelInfo(k2, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL), CL_SUCCESS);
    CHECK(strcmp(name, "test") == 0, "clone's name %s", name);
    size_t one = 1;
    EXPECT(clEnqueueNDRangeKernel(queue, k2, 1, NULL, &one, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    CHECK(clCloneKernel(NULL, &err) == NULL && err == CL_INVALID_KERNEL, "clCloneKernel(NULL): %d", err);
    clReleaseKernel(k2);
    clReleaseKernel(k);
    clReleaseMemObject(buf);

    /* clSetProgramReleaseCallback: no program-scope destructors, CL_INVALID_OPERATION. */
    EXPECT(clSetProgramReleaseCallback(p, program_callback, NULL), CL_INVALID_OPERATION);
    EXPECT(clSetProgramReleaseCallback(p, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clSetProgramReleaseCallback(NULL, program_callback, NULL), CL_INVALID_PROGRAM);
    clReleaseProgram(p);

    /* clSetContextDestructorCallback: called last-registered first, once the context and every
     * object attached to it are gone. */
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_mem held = clCreateBuffer(c2, CL_MEM_READ_WRITE, 16, NULL, &err);
    EXPECT(clSetContextDestructorCallback(c2, context_destructor, (void *)1), CL_SUCCESS);
    EXPECT(clSetContextDestructorCallback(c2, context_destructor, (void *)2), CL_SUCCESS);
    EXPECT(clSetContextDestructorCallback(c2, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clSetContextDestructorCallback(NULL, context_destructor, NULL), CL_INVALID_CONTEXT);
    EXPECT(clReleaseContext(c2), CL_SUCCESS);
    CHECK(destructor_calls == 0, "destructor ran with a buffer still attached");
    EXPECT(clReleaseMemObject(held), CL_SUCCESS);
    CHECK(destructor_calls == 2 && destructor_order[0] == 2 && destructor_order[1] == 1,
          "destructor calls %d, order %d %d", destructor_calls, destructor_order[0], destructor_order[1]);
}

/* OpenCL C 3.0: -cl-std=CL3.0, __OPENCL_VERSION__, and each feature macro defined exactly when
 * CL_DEVICE_OPENCL_C_FEATURES lists it (the CTS's compiler/features_macro). */
static void opencl_c_3(void) {
    cl_int st;
    cl_program p = build("#if __OPENCL_C_VERSION__ != 300 || __OPENCL_VERSION__ != 300\n#error version\n#endif\n"
                         "kernel void k(global int *b) { b[0] = 0; }\n",
                         "-cl-std=CL3.0", &st);
    CHECK(st == CL_SUCCESS, "-cl-std=CL3.0: %d", st);
    clReleaseProgram(p);
    p = build("#if __OPENCL_C_VERSION__ != 120 || __OPENCL_VERSION__ != 300\n#error version\n#endif\n"
              "kernel void k(global int *b) { b[0] = 0; }\n",
              NULL, &st);
    CHECK(st == CL_SUCCESS, "default OpenCL C 1.2 on a 3.0 device: %d", st);
    clReleaseProgram(p);
    p = build(kernel_src, "-cl-std=CL2.0", &st);
    CHECK(st == CL_INVALID_BUILD_OPTIONS, "-cl-std=CL2.0 (not in CL_DEVICE_OPENCL_C_ALL_VERSIONS): %d", st);
    clReleaseProgram(p);
    p = build(kernel_src, "-cl-std=CL3.0 -cl-uniform-work-group-size -cl-no-subgroup-ifp", &st);
    CHECK(st == CL_SUCCESS, "OpenCL 2.x build options: %d", st);
    clReleaseProgram(p);

    const char *all[] = {"__opencl_c_images",
                         "__opencl_c_3d_image_writes",
                         "__opencl_c_fp64",
                         "__opencl_c_int64",
                         "__opencl_c_atomic_order_acq_rel",
                         "__opencl_c_atomic_order_seq_cst",
                         "__opencl_c_atomic_scope_device",
                         "__opencl_c_atomic_scope_all_devices",
                         "__opencl_c_generic_address_space",
                         "__opencl_c_pipes",
                         "__opencl_c_device_enqueue",
                         "__opencl_c_program_scope_global_variables",
                         "__opencl_c_read_write_images",
                         "__opencl_c_subgroups",
                         "__opencl_c_work_group_collective_functions",
                         "__opencl_c_fp16"};
    size_t sz;
    cl_name_version *f = device_query(CL_DEVICE_OPENCL_C_FEATURES, &sz);
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        int reported = 0;
        for (size_t j = 0; j < sz / sizeof *f; j++) reported |= !strcmp(f[j].name, all[i]);
        char src[512];
        snprintf(src, sizeof src, "kernel void k(global int *b) { b[0] = 0; }\n#if%s %s\n#error\n#endif\n",
                 reported ? "ndef" : "def", all[i]);
        p = build(src, "-cl-std=CL3.0", &st);
        CHECK(st == CL_SUCCESS, "%s is %s but the macro %s", all[i], reported ? "reported" : "not reported",
              reported ? "is undefined" : "is defined");
        clReleaseProgram(p);
    }
    free(f);

    /* What the features promise compiles: C11 atomics in each order and scope reported, fences,
     * images, doubles and longs. */
    p = build("kernel void k(global atomic_int *a, local atomic_int *l, global int *o, global atomic_long *al,\n"
              "              global atomic_float *af, write_only image3d_t img, global double *d) {\n"
              "  int x = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_work_group);\n"
              "  x += atomic_fetch_add(a, 2);\n"
              "  x += atomic_fetch_max_explicit(a, 3, memory_order_acq_rel, memory_scope_device);\n"
              "  atomic_store_explicit(l, 3, memory_order_release, memory_scope_work_group);\n"
              "  x += atomic_load_explicit(l, memory_order_acquire, memory_scope_work_group);\n"
              "  int e = 0;\n"
              "  x += atomic_compare_exchange_strong_explicit(a, &e, 5, memory_order_seq_cst, memory_order_relaxed,\n"
              "                                               memory_scope_device);\n"
              "  x += atomic_compare_exchange_weak(a, &e, 6);\n"
              "  x += atomic_exchange(l, 7);\n"
              "  x += (int)atomic_fetch_or(al, 1L);\n"
              "  atomic_store(af, 1.5f);\n"
              "  x += (int)atomic_load(af);\n"
              "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);\n"
              "  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);\n"
              "  write_imagef(img, (int4)(0), (float4)(1.0f));\n"
              "  o[0] = x + e; d[0] = (double)x;\n"
              "}\n",
              "-cl-std=CL3.0", &st);
    CHECK(st == CL_SUCCESS, "OpenCL C 3.0 atomics, images, fp64: %d", st);
    clReleaseProgram(p);
}

/* On a GPU (argument "gpu"): the C11 atomics compute. Every work-item adds to global and local
 * counters in each order and scope the device reports and takes a maximum; one work-item per group
 * increments through a compare-exchange loop (a million work-items spinning on one address took
 * longer than a minute on an H200: each round lets one of them through); the totals must be exact. */
static void atomics_run(void) {
    const char *src =
        "kernel void count(global atomic_int *g, global atomic_uint *m, global int *out, global atomic_long *gl) {\n"
        "  local atomic_int l;\n"
        "  if (get_local_id(0) == 0) atomic_init(&l, 0);\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  atomic_fetch_add_explicit(&g[0], 1, memory_order_relaxed, memory_scope_work_group);\n"
        "  atomic_fetch_add_explicit(&g[1], 1, memory_order_acq_rel, memory_scope_device);\n"
        "  atomic_fetch_add(&g[2], 1);\n"
        "  atomic_fetch_sub_explicit(&g[3], 2, memory_order_release, memory_scope_device);\n"
        "  atomic_fetch_max_explicit(&m[0], (uint)get_global_id(0), memory_order_seq_cst, memory_scope_device);\n"
        "  atomic_fetch_min(&m[1], (uint)get_global_id(0) + 5u);\n"
        "  if (get_local_id(0) == 0) {\n"
        "    int e = atomic_load_explicit(&g[4], memory_order_acquire, memory_scope_device);\n"
        "    while (!atomic_compare_exchange_weak_explicit(&g[4], &e, e + 1, memory_order_acq_rel,\n"
        "                                                  memory_order_relaxed, memory_scope_device)) {}\n"
        "  }\n"
        "  atomic_fetch_add_explicit(&l, 1, memory_order_relaxed, memory_scope_work_group);\n"
        "  atomic_fetch_or(&gl[0], 1L << (get_global_id(0) % 64));\n"
        "  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  if (get_local_id(0) == 0) out[get_group_id(0)] = atomic_load(&l);\n"
        "}\n";
    cl_int st, err;
    cl_program p = build(src, "-cl-std=CL3.0", &st);
    CHECK(st == CL_SUCCESS, "atomics program: %d", st);
    cl_kernel k = clCreateKernel(p, "count", &err);
    enum { GROUPS = 4096, LOCAL = 256 };
    int g[5] = {0, 0, 0, 0, 0};
    unsigned m[2] = {0, 0xffffffffu};
    long long gl = 0;
    cl_mem gb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof g, g, &err);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof m, m, &err);
    cl_mem ob = clCreateBuffer(ctx, CL_MEM_READ_WRITE, GROUPS * sizeof(int), NULL, &err);
    cl_mem lb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof gl, &gl, &err);
    clSetKernelArg(k, 0, sizeof gb, &gb);
    clSetKernelArg(k, 1, sizeof mb, &mb);
    clSetKernelArg(k, 2, sizeof ob, &ob);
    clSetKernelArg(k, 3, sizeof lb, &lb);
    size_t gws = (size_t)GROUPS * LOCAL, lws = LOCAL;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &gws, &lws, 0, NULL, NULL), CL_SUCCESS);
    static int out[GROUPS];
    EXPECT(clEnqueueReadBuffer(queue, gb, CL_TRUE, 0, sizeof g, g, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, mb, CL_TRUE, 0, sizeof m, m, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, lb, CL_TRUE, 0, sizeof gl, &gl, 0, NULL, NULL), CL_SUCCESS);
    int n = GROUPS * LOCAL;
    CHECK(g[0] == n && g[1] == n && g[2] == n && g[3] == -2 * n && g[4] == GROUPS,
          "counters %d %d %d %d %d (want %d, and %d for the last)", g[0], g[1], g[2], g[3], g[4], n, GROUPS);
    CHECK(m[0] == (unsigned)n - 1 && m[1] == 5, "max %u min %u", m[0], m[1]);
    CHECK(gl == -1LL, "atomic_fetch_or on long: %llx", (unsigned long long)gl);
    int bad = 0;
    for (int i = 0; i < GROUPS; i++) bad += out[i] != LOCAL;
    CHECK(bad == 0, "local counters: %d groups wrong (first %d)", bad, out[0]);
    clReleaseMemObject(gb);
    clReleaseMemObject(mb);
    clReleaseMemObject(ob);
    clReleaseMemObject(lb);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

int main(int argc, char **argv) {
    plat = find_platform();
    if (!plat) {
        printf("cudacl platform not found\n");
        return 1;
    }
    platform_queries();
    if (argc > 1 && !strcmp(argv[1], "nodevice")) return report("cl30");
    dev = find_gpu(plat);
    if (!dev) {
        printf("no device\n");
        return 1;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    queue = clCreateCommandQueue(ctx, dev, 0, &err);
    device_versions();
    absent_features();
    entry_points();
    opencl_c_3();
    if (argc > 1 && !strcmp(argv[1], "gpu")) atomics_run();
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return report("cl30");
}
