/* ompcl runtime, part of one C file (see rt_base.c): OpenCL loaded with dlopen, and the choice of the device. */
/* ---------------------------------------------------------------- device choice */
static void *g_libcl;
#define LOAD(name) if (!(*(void **)&cl.name = dlsym(g_libcl, "cl" #name))) return 0;
static int load_cl(void) {
    g_libcl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g_libcl) g_libcl = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!g_libcl) return 0;
    LOAD(GetPlatformIDs) LOAD(GetPlatformInfo) LOAD(GetDeviceIDs) LOAD(GetDeviceInfo) LOAD(CreateContext)
    LOAD(CreateCommandQueue) LOAD(CreateBuffer) LOAD(ReleaseMemObject) LOAD(CreateProgramWithSource)
    LOAD(BuildProgram) LOAD(GetProgramBuildInfo) LOAD(CreateKernel) LOAD(SetKernelArg)
    LOAD(GetKernelWorkGroupInfo) LOAD(EnqueueWriteBuffer) LOAD(EnqueueReadBuffer) LOAD(EnqueueCopyBuffer) LOAD(EnqueueNDRangeKernel)
    LOAD(Finish) LOAD(EnqueueMapBuffer) LOAD(WaitForEvents) LOAD(ReleaseEvent)
    *(void **)&cl.EnqueueFillBuffer = dlsym(g_libcl, "clEnqueueFillBuffer");
    return 1;
}

static void print_profile(void);
static cl_device_id devices_choose(cl_platform_id p, cl_bitfield type, cl_device_id dflt);
static cl_context devices_context(const intptr_t *props, cl_int *err);
static void devices_open(const intptr_t *props);

static void init(void) {
    if (g_init) return;
    g_init = 1;
    g_page = sysconf(_SC_PAGESIZE);
    const char *pe = getenv("OMPCL_PROFILE");
    g_profile = pe && *pe && strcmp(pe, "0") != 0;
    if (g_profile) atexit(print_profile);
    const char *want = getenv("OMPCL_DEVICE");
    if (!want || !*want) want = "auto";
    if (!strcmp(want, "host")) return;
    int force_gpu = !strcmp(want, "gpu"), force_cpu = !strcmp(want, "cpu");
    if (!force_gpu && !force_cpu && strcmp(want, "auto")) warnf("OMPCL_DEVICE=%s not understood (gpu, cpu or host); choosing automatically", want);
    if (!load_cl()) {
        if (force_gpu || force_cpu) warnf("OMPCL_DEVICE=%s but libOpenCL.so.1 cannot be loaded; running on CPU threads", want);
        return;
    }
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (cl.GetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
    if (np > 16) np = 16;
    /* candidates by preference: 0 cudacl GPU, 1 other GPU, 2 CPU */
    cl_device_id best[3] = {0, 0, 0};
    cl_platform_id bestp[3] = {0, 0, 0};
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = "";
        cl.GetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        int is_cudacl = strstr(name, "cudacl") != NULL;
        cl_device_id d[8];
        cl_uint nd = 0;
        if (cl.GetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 8, d, &nd) == CL_SUCCESS && nd > 0) {
            int slot = is_cudacl ? 0 : 1;
            if (!best[slot]) { best[slot] = d[0]; bestp[slot] = plats[i]; }
        }
        nd = 0;
        if (cl.GetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 8, d, &nd) == CL_SUCCESS && nd > 0) {
            if (!best[2]) { best[2] = d[0]; bestp[2] = plats[i]; }
        }
    }
    int pick = -1;
    if (force_gpu) pick = best[0] ? 0 : best[1] ? 1 : -1;
    else if (force_cpu) pick = best[2] ? 2 : -1;
    else pick = best[0] ? 0 : best[1] ? 1 : best[2] ? 2 : -1;
    if (pick < 0) {
        if (force_gpu || force_cpu) warnf("OMPCL_DEVICE=%s but no such OpenCL device; running on CPU threads", want);
        return;
    }
    /* OMPCL_DEVICES: the devices of this platform and type to use (rt_split.c); the first is g_dev */
    g_dev = devices_choose(bestp[pick], pick == 2 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU, best[pick]);
    cl.GetPlatformInfo(bestp[pick], CL_PLATFORM_NAME, sizeof g_platname, g_platname, NULL);
    cl.GetDeviceInfo(g_dev, CL_DEVICE_NAME, sizeof g_devname, g_devname, NULL);
    char ext[8192] = "";
    cl.GetDeviceInfo(g_dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    g_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    cl_uint cc = 0;
    if (strstr(ext, "cl_nv_device_attribute_query") &&
        cl.GetDeviceInfo(g_dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof cc, &cc, NULL) == CL_SUCCESS)
        g_nv_cc = (int)cc;
    g_devlocks = g_nv_cc >= 7;
    const char *dl = getenv("OMPCL_DEVICE_LOCKS");
    if (dl && *dl) g_devlocks = strcmp(dl, "0") != 0;
    if (cl.GetDeviceInfo(g_dev, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof g_max_const, &g_max_const, NULL) != CL_SUCCESS)
        g_max_const = 65536; /* OpenCL 1.2's minimum */
    if (cl.GetDeviceInfo(g_dev, CL_DEVICE_MAX_CONSTANT_ARGS, sizeof g_max_const_args, &g_max_const_args, NULL) != CL_SUCCESS)
        g_max_const_args = 8;
    const char *tr = getenv("OMPCL_TRACK");
    if (tr && !strcmp(tr, "0")) g_notrack = 1;
    const char *pl = getenv("OMPCL_PLACEMENT");
    if (pl && !strcmp(pl, "device")) g_place_device = 1;
    /* Lazy copy-back calls the OpenCL driver from the SIGSEGV handler. Its hang (PolyBench's
       gemver and gesummv at 4096, cudacl and NVIDIA's OpenCL alike: libc's free, called through
       PolyBench's FREE macro, faulted on a protected block with the allocator lock held) is gone:
       every allocation call of the program is the runtime's (--wrap, rt_base.c). Its crash (front
       test f4 on PoCL: LLVM in the driver had put SIG_DFL back in place of the handler) is gone:
       the handler is checked after every call into the driver (install_handler). OMPCL_LAZY=0:
       copy back right after each kernel. */
    const char *lz = getenv("OMPCL_LAZY");
    g_eager = lz && !strcmp(lz, "0");
    const char *f64 = getenv("OMPCL_FP64"); /* OMPCL_FP64=0: keep double code off the device */
    if (f64 && !strcmp(f64, "0")) g_fp64 = 0;
    intptr_t props[3] = {CL_CONTEXT_PLATFORM, (intptr_t)bestp[pick], 0};
    cl_int err;
    g_ctx = devices_context(props, &err);
    if (!g_ctx || err) { warnf("clCreateContext failed (%d); running on CPU threads", err); return; }
    g_q = cl.CreateCommandQueue(g_ctx, g_dev, 0, &err);
    if (!g_q || err) { warnf("clCreateCommandQueue failed (%d); running on CPU threads", err); return; }
    devices_open(props);
    g_have_cl = 1;
}
