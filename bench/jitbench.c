/* The CUDA driver's PTX JIT (cuModuleLoadDataEx), timed: what a cold clBuildProgram pays after
 * ptxgen has made the PTX. A benchmark, not a test; needs only libcuda.so.1 (dlopen).
 *
 *   jitbench serial FILE.ptx...     first a tiny module (the JIT library's start-up), then each
 *                                   file in turn
 *   jitbench parallel FILE.ptx...   the tiny module, then all files at once, one thread each
 *   jitbench link-serial|link-parallel FILE.ptx...
 *                                   the same through cuLinkCreate/AddData/Complete (PTX to a
 *                                   cubin), then cuModuleLoadData of the cubin
 *
 * Run with CUDA_CACHE_DISABLE=1 (or an empty CUDA_CACHE_PATH) so that nothing comes from the
 * driver's own cache. Prints one line per load (with the JIT's own CU_JIT_WALL_TIME) and a total.
 * JIT options from the environment, to compare settings: JIT_OPT=0..4 (CU_JIT_OPTIMIZATION_LEVEL),
 * JIT_SPLIT=N (CU_JIT_SPLIT_COMPILE threads, 0 = one per CPU), JIT_PIC=0|1
 * (CU_JIT_POSITION_INDEPENDENT_CODE), JIT_REPEAT=N (load each file N times). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext;
typedef void *CUmodule;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(int *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
static CUresult (*cuLinkCreate)(unsigned, int *, void **, void **);
static CUresult (*cuLinkAddData)(void *, int, void *, size_t, const char *, unsigned, int *, void **);
static CUresult (*cuLinkComplete)(void *, void **, size_t *);
static CUresult (*cuLinkDestroy)(void *);
static int use_link;

static CUcontext ctx;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

#define CU_JIT_WALL_TIME 2
#define CU_JIT_OPTIMIZATION_LEVEL 7
#define CU_JIT_POSITION_INDEPENDENT_CODE 30
#define CU_JIT_SPLIT_COMPILE 34

/* Loads one PTX image; returns its time in ms, or -1 on failure; *jit_ms: the JIT's own figure. */
static double load(const char *ptx, float *jit_ms) {
    cuCtxSetCurrent(ctx);
    int opts[4];
    void *vals[4];
    unsigned n = 0;
    union { float f; void *p; } wall = {0};
    opts[n] = CU_JIT_WALL_TIME; vals[n++] = NULL;
    const char *e;
    if ((e = getenv("JIT_OPT"))) { opts[n] = CU_JIT_OPTIMIZATION_LEVEL; vals[n++] = (void *)(long)atoi(e); }
    if ((e = getenv("JIT_SPLIT"))) { opts[n] = CU_JIT_SPLIT_COMPILE; vals[n++] = (void *)(long)atoi(e); }
    if ((e = getenv("JIT_PIC"))) { opts[n] = CU_JIT_POSITION_INDEPENDENT_CODE; vals[n++] = (void *)(long)atoi(e); }
    CUmodule m;
    double t0 = now_ms();
    CUresult r;
    if (use_link) {
        void *state = NULL, *cubin = NULL;
        size_t size = 0;
        r = cuLinkCreate(n, opts, vals, &state);
        if (!r) r = cuLinkAddData(state, 1 /* CU_JIT_INPUT_PTX */, (void *)ptx, strlen(ptx) + 1, "k", 0, NULL, NULL);
        if (!r) r = cuLinkComplete(state, &cubin, &size);
        if (!r) r = cuModuleLoadDataEx(&m, cubin, 0, NULL, NULL);
        if (state) cuLinkDestroy(state);
    } else {
        r = cuModuleLoadDataEx(&m, ptx, n, opts, vals);
    }
    double t = now_ms() - t0;
    wall.p = vals[0];
    if (jit_ms) *jit_ms = wall.f;
    if (r) printf("  cuModuleLoadDataEx: error %d\n", r);
    return r == 0 ? t : -1;
}

struct job { const char *name; char *ptx; double ms; float jit_ms; };

static void *run_job(void *p) {
    struct job *j = p;
    j->ms = load(j->ptx, &j->jit_ms);
    return NULL;
}

static const char *TINY =
    ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry tiny() { ret; }\n";

int main(int argc, char **argv) {
    const char *mode = argv[1] ? argv[1] : "";
    if (strncmp(mode, "link-", 5) == 0) {
        use_link = 1;
        mode += 5;
    }
    if (argc < 3 || (strcmp(mode, "serial") && strcmp(mode, "parallel"))) {
        fprintf(stderr, "usage: %s serial|parallel|link-serial|link-parallel FILE.ptx...\n", argv[0]);
        return 100;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { printf("no libcuda.so.1\n"); return 2; }
    cuInit = dlsym(lib, "cuInit");
    cuDeviceGet = dlsym(lib, "cuDeviceGet");
    cuDevicePrimaryCtxRetain = dlsym(lib, "cuDevicePrimaryCtxRetain");
    cuCtxSetCurrent = dlsym(lib, "cuCtxSetCurrent");
    cuModuleLoadDataEx = dlsym(lib, "cuModuleLoadDataEx");
    cuLinkCreate = dlsym(lib, "cuLinkCreate_v2");
    cuLinkAddData = dlsym(lib, "cuLinkAddData_v2");
    cuLinkComplete = dlsym(lib, "cuLinkComplete");
    cuLinkDestroy = dlsym(lib, "cuLinkDestroy");
    int dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev)) { printf("no device\n"); return 2; }
    int n = argc - 2;
    struct job *jobs = calloc((size_t)n, sizeof *jobs);
    for (int i = 0; i < n; i++) {
        jobs[i].name = argv[i + 2];
        if (!(jobs[i].ptx = slurp(argv[i + 2]))) { printf("cannot read %s\n", argv[i + 2]); return 1; }
    }
    float w;
    double t = load(TINY, &w);
    printf("tiny module (JIT start-up): %.2f ms (JIT %.2f)\n", t, w);
    t = load(TINY, &w);
    printf("tiny module again: %.2f ms (JIT %.2f)\n", t, w);
    int repeat = getenv("JIT_REPEAT") ? atoi(getenv("JIT_REPEAT")) : 1;
    for (int k = 1; k < repeat; k++)
        for (int i = 0; i < n; i++) {
            run_job(&jobs[i]);
            printf("  %-40s %.2f ms (JIT %.2f) [repeat %d]\n", jobs[i].name, jobs[i].ms, jobs[i].jit_ms, k);
        }
    double t0 = now_ms();
    if (strcmp(mode, "serial") == 0) {
        for (int i = 0; i < n; i++) run_job(&jobs[i]);
    } else {
        pthread_t *th = calloc((size_t)n, sizeof *th);
        for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, run_job, &jobs[i]);
        for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    }
    double total = now_ms() - t0;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        printf("  %-40s %.2f ms (JIT %.2f)\n", jobs[i].name, jobs[i].ms, jobs[i].jit_ms);
        failed += jobs[i].ms < 0;
    }
    printf("%s, %d files: %.2f ms%s\n", argv[1], n, total, failed ? " (some failed)" : "");
    return failed != 0;
}
