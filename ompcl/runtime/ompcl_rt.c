/* ompcl runtime: device choice, OpenCL loaded with dlopen, the host-allocation table with
 * write tracking, kernel launch with two-stage reductions, and the OMPCL_PROFILE report.
 *
 * Data-tracking rule (see README): every block (malloc'd or global) has at most one device buffer.
 * A block is copied host->device when it has no device copy yet or when the host may have written
 * it since the last copy. "May have written" is tracked with page protection: after a block has
 * been synchronised, its whole pages are made read-only; the first host write to them faults, the
 * handler makes them writable again and marks the block host-dirty. Bytes of a block that do not
 * fill whole pages (small blocks, the edges of globals) are copied on every region that uses them.
 * After a kernel, only the blocks the region may write (from the translator's analysis) are copied
 * back, eagerly, so host memory is always current when the region returns.
 */
#define _GNU_SOURCE
#include "ompcl_rt.h"
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ---- minimal OpenCL 1.2 declarations (no OpenCL headers needed to build) ---- */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef int64_t cl_long;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;
#define CL_SUCCESS 0
#define CL_DEVICE_TYPE_CPU (1 << 1)
#define CL_DEVICE_TYPE_GPU (1 << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_EXTENSIONS 0x1030
#define CL_MEM_READ_WRITE 1
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_KERNEL_WORK_GROUP_SIZE 0x11B0
#define CL_CONTEXT_PLATFORM 0x1084

static struct {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int *);
    cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void *, cl_int *);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
    cl_int (*Finish)(cl_command_queue);
} cl;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_launch = PTHREAD_MUTEX_INITIALIZER;
static int g_init;          /* 0 not yet, 1 done */
static int g_have_cl;       /* an OpenCL device is in use */
static cl_device_id g_dev;
static cl_context g_ctx;
static cl_command_queue g_q;
static char g_devname[256], g_platname[256];
static int g_fp64;
static int g_profile;
static int g_notrack; /* OMPCL_TRACK=0: no page protection, every used block is copied each time */
static long g_page = 4096;

double ompcl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void warnf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ompcl: warning: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ---------------------------------------------------------------- allocation table */
typedef struct blk {
    char *base;
    size_t size;
    char *plo, *phi;        /* whole pages that can be write-protected */
    cl_mem mem;
    volatile int dirty;     /* host wrote the protected part since the last sync */
    volatile int prot;      /* pages currently read-only */
    int big, is_global, bigslot;
    struct blk *next;
} blk;

#define NBUCKET 4096
#define MAXBIG 65536
static blk *g_tab[NBUCKET];
static size_t g_nblk;
static blk *volatile g_big[MAXBIG];
static volatile int g_nbig;
static int g_handler;
static struct sigaction g_oldsa;

static unsigned bucket(const void *p) { return (unsigned)(((uintptr_t)p >> 4) * 2654435761u) % NBUCKET; }

static void unprotect(blk *b) {
    if (b->prot) {
        mprotect(b->plo, b->phi - b->plo, PROT_READ | PROT_WRITE);
        b->prot = 0;
    }
}

static void segv(int sig, siginfo_t *si, void *ctx) {
    char *a = (char *)si->si_addr;
    int n = g_nbig;
    for (int i = 0; i < n; i++) {
        blk *b = g_big[i];
        if (b && b->prot && a >= b->plo && a < b->phi) {
            mprotect(b->plo, b->phi - b->plo, PROT_READ | PROT_WRITE);
            b->prot = 0;
            b->dirty = 1;
            return;
        }
    }
    /* not ours */
    if (g_oldsa.sa_flags & SA_SIGINFO) {
        if (g_oldsa.sa_sigaction) { g_oldsa.sa_sigaction(sig, si, ctx); return; }
    } else if (g_oldsa.sa_handler != SIG_DFL && g_oldsa.sa_handler != SIG_IGN) {
        g_oldsa.sa_handler(sig);
        return;
    }
    signal(SIGSEGV, SIG_DFL); /* re-executing the access now ends the program as usual */
}

static void install_handler(void) {
    if (g_handler) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_oldsa);
    g_handler = 1;
}

static blk *tab_insert(void *p, size_t n, int is_global) {
    blk *b = calloc(1, sizeof *b);
    b->base = p;
    b->size = n;
    b->is_global = is_global;
    uintptr_t lo = ((uintptr_t)p + g_page - 1) & ~(uintptr_t)(g_page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(g_page - 1);
    b->dirty = 1;
    if (hi > lo && hi - lo >= (uintptr_t)g_page && g_nbig < MAXBIG) {
        b->plo = (char *)lo;
        b->phi = (char *)hi;
        b->big = 1;
        b->bigslot = g_nbig;
        g_big[g_nbig] = b;
        g_nbig++;
    }
    unsigned h = bucket(p);
    b->next = g_tab[h];
    g_tab[h] = b;
    g_nblk++;
    return b;
}

static blk *tab_remove(void *p) {
    unsigned h = bucket(p);
    for (blk **pp = &g_tab[h]; *pp; pp = &(*pp)->next) {
        if ((*pp)->base == p) {
            blk *b = *pp;
            *pp = b->next;
            g_nblk--;
            return b;
        }
    }
    return NULL;
}

/* block holding address p (p may be one past the end) */
static blk *tab_find(const char *p) {
    unsigned h = bucket(p);
    for (blk *b = g_tab[h]; b; b = b->next)
        if (b->base == p) return b;
    blk *best = NULL;
    for (unsigned i = 0; i < NBUCKET; i++)
        for (blk *b = g_tab[i]; b; b = b->next)
            if (p >= b->base && p <= b->base + b->size) {
                if (p < b->base + b->size) return b;
                best = b;
            }
    return best;
}

static void blk_release(blk *b) {
    unprotect(b);
    if (b->big) g_big[b->bigslot] = NULL;
    if (b->mem && cl.ReleaseMemObject) cl.ReleaseMemObject(b->mem);
    if (!b->big) free(b); /* big ones stay (the signal handler may read them); small struct leak */
}

void *ompcl_malloc(size_t n) {
    void *p;
    if (n >= 16384) {
        size_t r = (n + g_page - 1) & ~(size_t)(g_page - 1);
        if (posix_memalign(&p, g_page, r)) return NULL;
        pthread_mutex_lock(&g_lock);
        tab_insert(p, r, 0)->size = n;
        pthread_mutex_unlock(&g_lock);
    } else {
        p = malloc(n ? n : 1);
        if (!p) return NULL;
        pthread_mutex_lock(&g_lock);
        tab_insert(p, n, 0);
        pthread_mutex_unlock(&g_lock);
    }
    return p;
}

void *ompcl_memalign(size_t al, size_t n) {
    if (al <= 16 || (n >= 16384 && al <= (size_t)g_page)) return ompcl_malloc(n);
    void *p;
    if (posix_memalign(&p, al < sizeof(void *) ? sizeof(void *) : al, n ? n : 1)) return NULL;
    pthread_mutex_lock(&g_lock);
    tab_insert(p, n, 0);
    pthread_mutex_unlock(&g_lock);
    return p;
}
void *ompcl_aligned_alloc(size_t al, size_t n) { return ompcl_memalign(al, n); }
void *ompcl_valloc(size_t n) { return ompcl_memalign(g_page, n); }
int ompcl_posix_memalign(void **pp, size_t al, size_t n) {
    void *p = ompcl_memalign(al, n);
    if (!p) return 12; /* ENOMEM */
    *pp = p;
    return 0;
}

void *ompcl_calloc(size_t n, size_t s) {
    if (s && n > (size_t)-1 / s) return NULL;
    void *p = ompcl_malloc(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}

void ompcl_free(void *p) {
    if (!p) return;
    pthread_mutex_lock(&g_lock);
    blk *b = tab_remove(p);
    if (b) blk_release(b);
    pthread_mutex_unlock(&g_lock);
    free(p);
}

void *ompcl_realloc(void *p, size_t n) {
    if (!p) return ompcl_malloc(n);
    pthread_mutex_lock(&g_lock);
    blk *b = tab_find(p);
    size_t old = (b && b->base == (char *)p) ? b->size : 0;
    pthread_mutex_unlock(&g_lock);
    if (!b || b->base != (char *)p) return realloc(p, n);
    void *q = ompcl_malloc(n);
    if (!q) return NULL;
    memcpy(q, p, old < n ? old : n);
    ompcl_free(p);
    return q;
}

void ompcl_register_global(void *p, size_t n) {
    pthread_mutex_lock(&g_lock);
    tab_insert(p, n, 1);
    pthread_mutex_unlock(&g_lock);
}

void ompcl_host_wrote(void *p, size_t n) {
    char *a = p;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nbig; i++) {
        blk *b = g_big[i];
        if (b && a < b->base + b->size && a + n > b->base) {
            unprotect(b);
            b->dirty = 1;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

size_t ompcl_fread(void *p, size_t s, size_t n, FILE *f) {
    ompcl_host_wrote(p, s * n);
    return fread(p, s, n, f);
}
ssize_t ompcl_read(int fd, void *p, size_t n) {
    ompcl_host_wrote(p, n);
    return read(fd, p, n);
}
ssize_t ompcl_pread(int fd, void *p, size_t n, off_t off) {
    ompcl_host_wrote(p, n);
    return pread(fd, p, n, off);
}

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
    LOAD(GetKernelWorkGroupInfo) LOAD(EnqueueWriteBuffer) LOAD(EnqueueReadBuffer) LOAD(EnqueueNDRangeKernel)
    LOAD(Finish)
    return 1;
}

static void print_profile(void);

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
    g_dev = best[pick];
    cl.GetPlatformInfo(bestp[pick], CL_PLATFORM_NAME, sizeof g_platname, g_platname, NULL);
    cl.GetDeviceInfo(g_dev, CL_DEVICE_NAME, sizeof g_devname, g_devname, NULL);
    char ext[8192] = "";
    cl.GetDeviceInfo(g_dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    g_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    const char *tr = getenv("OMPCL_TRACK");
    if (tr && !strcmp(tr, "0")) g_notrack = 1;
    const char *f64 = getenv("OMPCL_FP64"); /* OMPCL_FP64=0: keep double code off the device */
    if (f64 && !strcmp(f64, "0")) g_fp64 = 0;
    intptr_t props[3] = {CL_CONTEXT_PLATFORM, (intptr_t)bestp[pick], 0};
    cl_int err;
    g_ctx = cl.CreateContext(props, 1, &g_dev, NULL, NULL, &err);
    if (!g_ctx || err) { warnf("clCreateContext failed (%d); running on CPU threads", err); return; }
    g_q = cl.CreateCommandQueue(g_ctx, g_dev, 0, &err);
    if (!g_q || err) { warnf("clCreateCommandQueue failed (%d); running on CPU threads", err); return; }
    g_have_cl = 1;
}

/* ---------------------------------------------------------------- modules, profile */
typedef struct rstat {
    int line, runs_cl, runs_cpu;
    double build, h2d, kern, d2h, cpu;
    size_t bytes_h2d, bytes_d2h;
    int warned;
} rstat;

typedef struct mstate {
    int status; /* 0 not built, 1 built, -1 unusable, 2 built region by region */
    cl_program prog;
    cl_program *rprog; /* status 2: one program per region (-DOMPCL_ONLY=N) */
    int *rstatus;
    cl_kernel *kern;
    size_t *wgs;
    rstat *st;
    ompcl_module *m;
    struct mstate *next;
} mstate;
static mstate *g_mods;

static mstate *mod_state(ompcl_module *m) {
    if (!m->state) {
        mstate *s = calloc(1, sizeof *s);
        int n = m->nregions > 0 ? m->nregions : 1;
        s->kern = calloc(n, sizeof *s->kern);
        s->wgs = calloc(n, sizeof *s->wgs);
        s->st = calloc(n, sizeof *s->st);
        s->rprog = calloc(n, sizeof *s->rprog);
        s->rstatus = calloc(n, sizeof *s->rstatus);
        s->m = m;
        s->next = g_mods;
        g_mods = s;
        m->state = s;
    }
    return m->state;
}

static const char *base_name(const char *f) {
    const char *s = strrchr(f, '/');
    return s ? s + 1 : f;
}

static void print_profile(void) {
    double tb = 0, th = 0, tk = 0, td = 0, tc = 0;
    if (g_have_cl) fprintf(stderr, "ompcl-profile: device: %s (platform %s)\n", g_devname, g_platname);
    else fprintf(stderr, "ompcl-profile: device: none (CPU threads)\n");
    for (mstate *s = g_mods; s; s = s->next) {
        for (int i = 0; i < s->m->nregions; i++) {
            rstat *r = &s->st[i];
            if (!r->runs_cl && !r->runs_cpu) continue;
            char where[400];
            if (r->runs_cl && r->runs_cpu) snprintf(where, sizeof where, "opencl+cpu");
            else if (r->runs_cl) snprintf(where, sizeof where, "opencl");
            else snprintf(where, sizeof where, "cpu");
            fprintf(stderr,
                    "ompcl-profile: %s:%d region %d: %s runs=%d build=%.3f ms h2d=%.3f ms (%zu B) kernel=%.3f ms "
                    "d2h=%.3f ms (%zu B) cpu=%.3f ms\n",
                    base_name(s->m->file), r->line, i, where, r->runs_cl + r->runs_cpu, r->build * 1e3, r->h2d * 1e3,
                    r->bytes_h2d, r->kern * 1e3, r->d2h * 1e3, r->bytes_d2h, r->cpu * 1e3);
            tb += r->build; th += r->h2d; tk += r->kern; td += r->d2h; tc += r->cpu;
        }
    }
    fprintf(stderr, "ompcl-profile: total: build=%.3f ms h2d=%.3f ms kernel=%.3f ms d2h=%.3f ms cpu=%.3f ms\n", tb * 1e3,
            th * 1e3, tk * 1e3, td * 1e3, tc * 1e3);
}

void ompcl_cpu_end(ompcl_module *m, int rid, int line, double t0) {
    if (!g_init) {
        pthread_mutex_lock(&g_launch);
        init();
        pthread_mutex_unlock(&g_launch);
    }
    if (!g_profile) return;
    pthread_mutex_lock(&g_launch);
    mstate *s = mod_state(m);
    if (rid < m->nregions) {
        s->st[rid].line = line;
        s->st[rid].runs_cpu++;
        s->st[rid].cpu += ompcl_now() - t0;
    }
    pthread_mutex_unlock(&g_launch);
}

/* Build `m`'s source with `opts`; on failure put the first error line into err. */
static cl_program build_src(ompcl_module *m, const char *opts, rstat *r, char *err, size_t errlen) {
    double t0 = ompcl_now();
    cl_int e;
    const char *src = m->source;
    cl_program p = cl.CreateProgramWithSource(g_ctx, 1, &src, NULL, &e);
    if (!p || e) { snprintf(err, errlen, "clCreateProgramWithSource: %d", e); return NULL; }
    e = cl.BuildProgram(p, 1, &g_dev, opts, NULL, NULL);
    r->build += ompcl_now() - t0;
    if (e == CL_SUCCESS) return p;
    size_t n = 0;
    cl.GetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(1, n + 1);
    if (n) cl.GetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    /* one line: the first error of the log (OMPCL_BUILD_LOG=1 prints all of it) */
    const char *first = strstr(log, "error");
    if (!first) first = log;
    const char *eol = strchr(first, '\n');
    int len = eol ? (int)(eol - first) : (int)strlen(first);
    if (len > 300) len = 300;
    snprintf(err, errlen, "clBuildProgram %d: %.*s", e, len, first);
    const char *bl = getenv("OMPCL_BUILD_LOG");
    if (bl && *bl && strcmp(bl, "0")) fprintf(stderr, "%s\n", log);
    free(log);
    return NULL;
}

/* The program holding region rid's kernel, or NULL (the region runs on the CPU). */
static cl_program program_for(ompcl_module *m, mstate *s, int rid, rstat *r, int line) {
    char err[512];
    if (s->status == 0) {
        s->status = -1;
        if (m->needs_fp64 && !g_fp64) {
            warnf("%s: the OpenCL device '%s' has no fp64 (cl_khr_fp64); its regions run on the CPU", base_name(m->file), g_devname);
            return NULL;
        }
        s->prog = build_src(m, m->options, r, err, sizeof err);
        if (s->prog) {
            s->status = 1;
        } else {
            s->status = 2;
            warnf("%s: OpenCL build of the file failed on '%s' (%s); building its regions one by one", base_name(m->file),
                  g_devname, err);
        }
    }
    if (s->status == 1) return s->prog;
    if (s->status != 2) return NULL;
    if (s->rstatus[rid] == 0) {
        char *opts = malloc(strlen(m->options) + 64);
        sprintf(opts, "%s -DOMPCL_ONLY=%d", m->options, rid);
        s->rprog[rid] = build_src(m, opts, r, err, sizeof err);
        free(opts);
        s->rstatus[rid] = s->rprog[rid] ? 1 : -1;
        if (!s->rprog[rid]) warnf("%s:%d: OpenCL build failed (%s); the region runs on the CPU", base_name(m->file), line, err);
    }
    return s->rstatus[rid] == 1 ? s->rprog[rid] : NULL;
}

typedef struct use {
    blk *b;
    int written, tmp;
} use;

static double tm_h2d, tm_d2h;
static size_t by_h2d, by_d2h;

static int wr(cl_mem mem, size_t off, size_t n, const void *p) {
    double t = ompcl_now();
    int e = cl.EnqueueWriteBuffer(g_q, mem, 1, off, n, p, 0, NULL, NULL);
    tm_h2d += ompcl_now() - t;
    by_h2d += n;
    return e;
}
static int rd(cl_mem mem, size_t off, size_t n, void *p) {
    double t = ompcl_now();
    int e = cl.EnqueueReadBuffer(g_q, mem, 1, off, n, p, 0, NULL, NULL);
    tm_d2h += ompcl_now() - t;
    by_d2h += n;
    return e;
}

/* make the device copy of b current */
static int sync_to_device(blk *b) {
    cl_int err = 0;
    if (!b->mem) {
        b->mem = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, b->size ? b->size : 1, NULL, &err);
        if (!b->mem || err) { b->mem = NULL; return -1; }
        b->dirty = 1;
    }
    if (!b->big || b->dirty || !b->prot) {
        if (b->size) err = wr(b->mem, 0, b->size, b->base);
        if (err && b->prot) {
            /* a driver that cannot read write-protected pages: stop tracking, copy plainly */
            warnf("the OpenCL driver refused write-protected host memory (%d); host writes are no longer tracked", err);
            g_notrack = 1;
            unprotect(b);
            err = wr(b->mem, 0, b->size, b->base);
        }
    } else {
        /* protected whole pages are clean: copy only the edges */
        if (b->plo > b->base) err |= wr(b->mem, 0, b->plo - b->base, b->base);
        if (b->base + b->size > b->phi) err |= wr(b->mem, b->phi - b->base, b->base + b->size - b->phi, b->phi);
    }
    b->dirty = 0;
    return err ? -1 : 0;
}

static void protect(blk *b) {
    if (!b->big || b->prot || b->is_global < 0 || g_notrack) return;
    install_handler();
    b->dirty = 0;
    if (mprotect(b->plo, b->phi - b->plo, PROT_READ) == 0) b->prot = 1;
}

/* The kernel of region rid, built and created (with its work-group size) once; NULL: run the CPU
   version. Called with g_launch held. */
static cl_kernel kernel_for(ompcl_module *m, mstate *s, int rid, rstat *r, int line) {
    cl_program prog = program_for(m, s, rid, r, line);
    if (!prog) return NULL;
    cl_int err = 0;
    if (!s->kern[rid]) {
        char kn[64];
        snprintf(kn, sizeof kn, "ompcl_r%d", rid);
        s->kern[rid] = cl.CreateKernel(prog, kn, &err);
        if (!s->kern[rid] || err) {
            s->kern[rid] = NULL;
            if (!r->warned++) warnf("%s:%d: clCreateKernel(%s) failed (%d); the region runs on the CPU", base_name(m->file), line, kn, err);
            return NULL;
        }
        size_t w = 0;
        cl.GetKernelWorkGroupInfo(s->kern[rid], g_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof w, &w, NULL);
        size_t l = 1;
        while (l * 2 <= w && l * 2 <= 128) l *= 2; /* <= 128: the kernels' __local reduction arrays */
        s->wgs[rid] = l;
    }
    return s->kern[rid];
}

/* A region made of several kernels runs them all or none: before the first runs, each must be
   built and every block it uses known to the runtime. */
int ompcl_kernel_ready(ompcl_module *m, int rid, int line, ompcl_arg *a, int na) {
    pthread_mutex_lock(&g_launch);
    init();
    int ok = g_have_cl;
    mstate *s = ok ? mod_state(m) : NULL;
    rstat *r = ok ? &s->st[rid] : NULL;
    if (ok) {
        r->line = line;
        ok = kernel_for(m, s, rid, r, line) != NULL;
    }
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_BUF) continue;
        int found = tab_find(a[i].addr) != NULL;
        for (int j = 0; j < na && !found; j++)
            if (a[j].kind == OMPCL_TMP && (char *)a[i].addr >= (char *)a[j].addr &&
                (char *)a[i].addr <= (char *)a[j].addr + a[j].size) found = 1;
        if (!found) {
            ok = 0;
            if (!r->warned++)
                warnf("%s:%d: '%s' does not point into memory ompcl knows (malloc'd or global); the region runs on the CPU",
                      base_name(m->file), line, a[i].name);
        }
    }
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
    return ok;
}

/* A kernel of a sequence failed after earlier ones ran: the CPU version cannot redo the region. */
void ompcl_sequence_failed(ompcl_module *m, int line) {
    fprintf(stderr, "ompcl: error: %s:%d: a kernel of this region failed after earlier kernels of the region ran; "
                    "stopping (running the region again on the CPU would give wrong results)\n", base_name(m->file), line);
    exit(70);
}

int ompcl_region_opencl(ompcl_module *m, int rid, int line, int target, long long lb, long long st, long long n,
                        ompcl_arg *a, int na) {
    (void)target;
    pthread_mutex_lock(&g_launch);
    init();
    if (!g_have_cl) { pthread_mutex_unlock(&g_launch); return 0; }
    mstate *s = mod_state(m);
    rstat *r = &s->st[rid];
    r->line = line;
    if (!kernel_for(m, s, rid, r, line)) { pthread_mutex_unlock(&g_launch); return 0; }
    cl_int err = 0;
    cl_kernel k = s->kern[rid];
    size_t L = s->wgs[rid];
    size_t groups = n > 0 ? (size_t)((n + L - 1) / L) : 0;
    tm_h2d = tm_d2h = 0;
    by_h2d = by_d2h = 0;
    int ok = 1;
    use *u = calloc(na + 1, sizeof *u);
    int nu = 0;
    cl_mem *tmpmem = calloc(na + 1, sizeof *tmpmem);
    const char *failname = NULL;
    pthread_mutex_lock(&g_lock);
    /* ephemeral blocks (local arrays and scalars) first, so pointers into them resolve */
    blk *eph = NULL;
    for (int i = 0; i < na; i++) {
        if (a[i].kind == OMPCL_TMP) {
            blk *b = calloc(1, sizeof *b);
            b->base = a[i].addr;
            b->size = a[i].size;
            b->is_global = -1;
            b->dirty = 1;
            b->next = eph;
            eph = b;
        }
    }
    cl_uint ai = 0;
    cl_long lb_ = lb, st_ = st, n_ = n;
#define SET(sz, p) do { if (cl.SetKernelArg(k, ai++, sz, p) != CL_SUCCESS) { ok = 0; failname = "clSetKernelArg"; } } while (0)
    SET(sizeof lb_, &lb_);
    SET(sizeof st_, &st_);
    SET(sizeof n_, &n_);
    for (int i = 0; i < na && ok; i++) {
        ompcl_arg *x = &a[i];
        switch (x->kind) {
        case OMPCL_VAL:
            SET(x->size, x->addr);
            break;
        case OMPCL_BUF:
        case OMPCL_TMP: {
            blk *b = NULL;
            for (blk *e = eph; e && !b; e = e->next)
                if (x->kind == OMPCL_TMP ? (char *)x->addr == e->base
                                         : ((char *)x->addr >= e->base && (char *)x->addr < e->base + e->size)) b = e;
            for (blk *e = eph; e && !b && x->kind == OMPCL_BUF; e = e->next)
                if ((char *)x->addr == e->base + e->size) b = e;
            if (!b) b = tab_find(x->addr);
            if (!b) {
                ok = 0;
                if (!r->warned++)
                    warnf("%s:%d: '%s' does not point into memory ompcl knows (malloc'd or global); the region runs on the CPU",
                          base_name(m->file), line, x->name);
                failname = "";
                break;
            }
            int j;
            for (j = 0; j < nu; j++)
                if (u[j].b == b) break;
            if (j == nu) { u[nu].b = b; u[nu].written = 0; u[nu].tmp = b->is_global < 0; nu++; }
            u[j].written |= x->written;
            if (!b->mem || b->dirty || !b->big || !b->prot || b->plo > b->base || b->base + b->size > b->phi) {
                if (sync_to_device(b)) { ok = 0; failname = "clCreateBuffer/clEnqueueWriteBuffer"; break; }
            }
            cl_long off = (char *)x->addr - b->base;
            SET(sizeof(cl_mem), &b->mem);
            SET(sizeof off, &off);
            break;
        }
        case OMPCL_RED: {
            tmpmem[i] = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, (groups ? groups : 1) * x->size, NULL, &err);
            if (!tmpmem[i] || err) { ok = 0; failname = "clCreateBuffer"; break; }
            SET(sizeof(cl_mem), &tmpmem[i]); /* partials; the tree is in static __local memory */
            break;
        }
        case OMPCL_LASTP: {
            tmpmem[i] = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, x->size, NULL, &err);
            if (!tmpmem[i] || err) { ok = 0; failname = "clCreateBuffer"; break; }
            SET(sizeof(cl_mem), &tmpmem[i]);
            break;
        }
        }
    }
    pthread_mutex_unlock(&g_lock);
    double tk = 0;
    if (ok && groups > 0) {
        size_t gsz = groups * L;
        double t0 = ompcl_now();
        err = cl.EnqueueNDRangeKernel(g_q, k, 1, NULL, &gsz, &L, 0, NULL, NULL);
        if (!err) err = cl.Finish(g_q);
        tk = ompcl_now() - t0;
        if (err) { ok = 0; failname = "clEnqueueNDRangeKernel"; }
    }
    if (ok) {
        /* reductions: finish the per-group partials on the host */
        for (int i = 0; i < na && ok; i++) {
            ompcl_arg *x = &a[i];
            if (x->kind == OMPCL_RED && groups > 0) {
                char *part = malloc(groups * x->size);
                if (rd(tmpmem[i], 0, groups * x->size, part)) { ok = 0; failname = "clEnqueueReadBuffer"; free(part); break; }
#define COMB(T)                                                                                      \
    {                                                                                                \
        T acc = *(T *)x->addr;                                                                       \
        T *pp = (T *)part;                                                                           \
        for (size_t g = 0; g < groups; g++) switch (x->rop) {                                        \
            case 1: case 3: acc = acc + pp[g]; break;                                                \
            case 2: acc = acc * pp[g]; break;                                                        \
            case 7: acc = acc && pp[g]; break;                                                       \
            case 8: acc = acc || pp[g]; break;                                                       \
            }                                                                                        \
        *(T *)x->addr = acc;                                                                         \
    }
#define COMBI(T)                                                                                     \
    {                                                                                                \
        T acc = *(T *)x->addr;                                                                       \
        T *pp = (T *)part;                                                                           \
        for (size_t g = 0; g < groups; g++) switch (x->rop) {                                        \
            case 1: case 3: acc = acc + pp[g]; break;                                                \
            case 2: acc = acc * pp[g]; break;                                                        \
            case 4: acc = acc & pp[g]; break;                                                        \
            case 5: acc = acc | pp[g]; break;                                                        \
            case 6: acc = acc ^ pp[g]; break;                                                        \
            case 7: acc = acc && pp[g]; break;                                                       \
            case 8: acc = acc || pp[g]; break;                                                       \
            }                                                                                        \
        *(T *)x->addr = acc;                                                                         \
    }
                switch (x->rtype) {
                case 1: COMBI(int32_t) break;
                case 2: COMBI(uint32_t) break;
                case 3: COMBI(int64_t) break;
                case 4: COMBI(uint64_t) break;
                case 5: COMB(float) break;
                case 6: COMB(double) break;
                }
                free(part);
            } else if (x->kind == OMPCL_LASTP && n > 0) {
                if (rd(tmpmem[i], 0, x->size, x->addr)) { ok = 0; failname = "clEnqueueReadBuffer"; }
            }
        }
        /* copy back what the region may have written */
        pthread_mutex_lock(&g_lock);
        for (int j = 0; j < nu && ok; j++) {
            blk *b = u[j].b;
            if (u[j].written && groups > 0) {
                unprotect(b);
                if (rd(b->mem, 0, b->size, b->base)) { ok = 0; failname = "clEnqueueReadBuffer"; }
            }
        }
        for (int j = 0; j < nu && ok; j++) protect(u[j].b);
        pthread_mutex_unlock(&g_lock);
    }
    for (int i = 0; i < na; i++)
        if (tmpmem[i]) cl.ReleaseMemObject(tmpmem[i]);
    while (eph) {
        blk *nx = eph->next;
        if (eph->mem) cl.ReleaseMemObject(eph->mem);
        free(eph);
        eph = nx;
    }
    if (!ok) {
        /* device copies may be stale now: forget them */
        for (int j = 0; j < nu; j++) if (!u[j].tmp) { unprotect(u[j].b); u[j].b->dirty = 1; }
        if (failname && *failname && !r->warned++)
            warnf("%s:%d: %s failed (%d); the region runs on the CPU", base_name(m->file), line, failname, err);
    } else {
        r->runs_cl++;
        r->h2d += tm_h2d;
        r->d2h += tm_d2h;
        r->kern += tk;
        r->bytes_h2d += by_h2d;
        r->bytes_d2h += by_d2h;
    }
    free(u);
    free(tmpmem);
    pthread_mutex_unlock(&g_launch);
    return ok;
}

#ifdef OMPCL_PTHREADS
/* ================================================================ OpenMP on pthreads
 * The CPU version of every region: a team of threads from a persistent pool runs the region's
 * outlined function; worksharing constructs share per-construct slots in the team. */
#include "omp.h"
#include <limits.h>

#define NSLOT 16
typedef struct slot {
    long long idx;           /* construct using the slot (-1: none) */
    int users;               /* threads that have not left it yet */
    long long next;          /* dynamic/guided: next iteration */
    long long ord;           /* ordered: iteration allowed to run its ordered region */
    int single;              /* single: taken */
} slot;

typedef struct team {
    int n, level;
    void (*fn)(void);
    pthread_mutex_t m;
    pthread_cond_t cv;
    int bcount;
    unsigned bgen;
    slot slots[NSLOT];
} team;

static __thread team *t_team;
static __thread int t_tid;
static __thread long long t_wsc;
static __thread ompc_ws *t_ws;
static __thread slot *t_single;
static __thread int t_level;

static int icv_nthreads, icv_dynamic, icv_nested, icv_sched = 1, icv_chunk;
static pthread_once_t icv_once = PTHREAD_ONCE_INIT;
static void icv_init(void) {
    long np = sysconf(_SC_NPROCESSORS_ONLN);
    icv_nthreads = np > 0 ? (int)np : 1;
    const char *e = getenv("OMP_NUM_THREADS");
    if (e && atoi(e) > 0) icv_nthreads = atoi(e);
    e = getenv("OMP_DYNAMIC");
    icv_dynamic = e && (!strcasecmp(e, "true") || !strcmp(e, "1"));
    e = getenv("OMP_NESTED");
    icv_nested = e && (!strcasecmp(e, "true") || !strcmp(e, "1"));
    e = getenv("OMP_SCHEDULE");
    if (e) {
        if (!strncasecmp(e, "dynamic", 7)) icv_sched = 2;
        else if (!strncasecmp(e, "guided", 6)) icv_sched = 3;
        const char *c = strchr(e, ',');
        if (c) icv_chunk = atoi(c + 1);
    }
}
#define ICV() pthread_once(&icv_once, icv_init)

static void team_barrier(team *t) {
    pthread_mutex_lock(&t->m);
    unsigned g = t->bgen;
    if (++t->bcount == t->n) {
        t->bcount = 0;
        t->bgen++;
        pthread_cond_broadcast(&t->cv);
    } else {
        while (g == t->bgen) pthread_cond_wait(&t->cv, &t->m);
    }
    pthread_mutex_unlock(&t->m);
}

/* thread pool */
static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pcv = PTHREAD_COND_INITIALIZER, pdone = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t plaunch = PTHREAD_MUTEX_INITIALIZER;
static unsigned pgen;
static team *pteam;
static int ppending, pool_n;
typedef struct { int id; unsigned gen; } wstart;

static void *worker(void *arg) {
    wstart ws = *(wstart *)arg;
    free(arg);
    unsigned seen = ws.gen;
    for (;;) {
        pthread_mutex_lock(&pm);
        while (pgen == seen) pthread_cond_wait(&pcv, &pm);
        seen = pgen;
        team *t = pteam;
        pthread_mutex_unlock(&pm);
        if (ws.id < t->n) {
            t_team = t;
            t_tid = ws.id;
            t_wsc = 0;
            t_level = t->level;
            t->fn();
            t_team = NULL;
            pthread_mutex_lock(&pm);
            if (--ppending == 0) pthread_cond_signal(&pdone);
            pthread_mutex_unlock(&pm);
        }
    }
    return NULL;
}

void ompc_parallel(void (*fn)(void), int nt, int ifc) {
    ICV();
    int n = nt > 0 ? nt : icv_nthreads;
    if (!ifc || (t_team && t_team->n > 1)) n = 1;
    if (n > 1024) n = 1024;
    team *t = calloc(1, sizeof *t);
    pthread_mutex_init(&t->m, NULL);
    pthread_cond_init(&t->cv, NULL);
    for (int i = 0; i < NSLOT; i++) t->slots[i].idx = -1;
    t->fn = fn;
    t->level = t_level + 1;
    int pooled = 0;
    if (n > 1 && pthread_mutex_trylock(&plaunch) == 0) {
        pooled = 1;
        pthread_mutex_lock(&pm);
        while (pool_n < n - 1) {
            wstart *a = malloc(sizeof *a);
            a->id = pool_n + 1;
            a->gen = pgen;
            pthread_t th;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&at, 16 << 20);
            if (pthread_create(&th, &at, worker, a)) { free(a); pthread_attr_destroy(&at); break; }
            pthread_attr_destroy(&at);
            pool_n++;
        }
        if (pool_n < n - 1) n = pool_n + 1;
        t->n = n;
        pteam = t;
        ppending = n - 1;
        pgen++;
        pthread_cond_broadcast(&pcv);
        pthread_mutex_unlock(&pm);
    } else {
        n = 1;
    }
    t->n = n;
    team *st = t_team;
    int stid = t_tid, slev = t_level;
    long long swsc = t_wsc;
    ompc_ws *sws = t_ws;
    t_team = t;
    t_tid = 0;
    t_wsc = 0;
    t_level = t->level;
    fn();
    if (pooled) {
        pthread_mutex_lock(&pm);
        while (ppending) pthread_cond_wait(&pdone, &pm);
        pthread_mutex_unlock(&pm);
        pthread_mutex_unlock(&plaunch);
    }
    t_team = st;
    t_tid = stid;
    t_wsc = swsc;
    t_ws = sws;
    t_level = slev;
    pthread_mutex_destroy(&t->m);
    pthread_cond_destroy(&t->cv);
    free(t);
}

static slot *claim(team *t) {
    long long idx = t_wsc++;
    slot *s = &t->slots[idx % NSLOT];
    pthread_mutex_lock(&t->m);
    while (s->idx != idx && s->users > 0) pthread_cond_wait(&t->cv, &t->m);
    if (s->idx != idx) {
        s->idx = idx;
        s->users = t->n;
        s->next = 0;
        s->ord = 0;
        s->single = 0;
    }
    pthread_mutex_unlock(&t->m);
    return s;
}

static void release(team *t, slot *s) {
    pthread_mutex_lock(&t->m);
    if (--s->users == 0) pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->m);
}

void ompc_for_init(ompc_ws *w, long long n, int sched, long long chunk, int ordered) {
    ICV();
    memset(w, 0, sizeof *w);
    if (sched == 4) { sched = icv_sched; chunk = icv_chunk; }
    w->n = n;
    w->sched = sched;
    w->chunk = chunk;
    w->ordered = ordered;
    w->executed = -1;
    team *t = t_team;
    w->nt = t ? t->n : 1;
    w->tid = t ? t_tid : 0;
    w->slot = (t && t->n > 1) ? claim(t) : NULL;
    t_ws = w;
}

int ompc_for_next(ompc_ws *w, long long *lo, long long *hi) {
    long long n = w->n;
    if (!w->slot) {
        if (w->k++ == 0 && n > 0) { *lo = 0; *hi = n; return 1; }
        return 0;
    }
    slot *s = w->slot;
    long long nt = w->nt, c = w->chunk;
    switch (w->sched) {
    case 2: {
        if (c < 1) c = 1;
        long long l = __atomic_fetch_add(&s->next, c, __ATOMIC_RELAXED);
        if (l >= n) return 0;
        *lo = l;
        *hi = l + c < n ? l + c : n;
        return 1;
    }
    case 3: {
        if (c < 1) c = 1;
        for (;;) {
            long long cur = __atomic_load_n(&s->next, __ATOMIC_RELAXED);
            if (cur >= n) return 0;
            long long g = (n - cur) / (2 * nt);
            if (g < c) g = c;
            if (__atomic_compare_exchange_n(&s->next, &cur, cur + g, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                *lo = cur;
                *hi = cur + g < n ? cur + g : n;
                return 1;
            }
        }
    }
    default:
        if (c <= 0) {
            if (w->k++) return 0;
            long long q = n / nt, r = n % nt, t = w->tid;
            long long l = t * q + (t < r ? t : r);
            long long h = l + q + (t < r ? 1 : 0);
            if (l >= h) return 0;
            *lo = l;
            *hi = h;
            return 1;
        } else {
            long long l = (w->k * nt + w->tid) * c;
            if (l >= n) return 0;
            w->k++;
            *lo = l;
            *hi = l + c < n ? l + c : n;
            return 1;
        }
    }
}

void ompc_for_end(ompc_ws *w, int nowait) {
    team *t = t_team;
    if (w->slot) release(t, w->slot);
    t_ws = NULL;
    if (!nowait && t && t->n > 1) team_barrier(t);
}

void ompc_ordered_begin(void) {
    ompc_ws *w = t_ws;
    if (!w || !w->slot) return;
    slot *s = w->slot;
    team *t = t_team;
    pthread_mutex_lock(&t->m);
    while (s->ord != w->it) pthread_cond_wait(&t->cv, &t->m);
    pthread_mutex_unlock(&t->m);
}

void ompc_ordered_end(void) {
    ompc_ws *w = t_ws;
    if (!w || !w->slot) return;
    slot *s = w->slot;
    team *t = t_team;
    w->executed = w->it;
    pthread_mutex_lock(&t->m);
    s->ord = w->it + 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->m);
}

void ompc_ordered_iter_end(ompc_ws *w, long long it) {
    if (!w->slot || w->executed == it) return;
    slot *s = w->slot;
    team *t = t_team;
    pthread_mutex_lock(&t->m);
    while (s->ord != it) pthread_cond_wait(&t->cv, &t->m);
    s->ord = it + 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->m);
}

int ompc_single_begin(void) {
    team *t = t_team;
    if (!t || t->n == 1) { t_single = NULL; return 1; }
    slot *s = claim(t);
    t_single = s;
    return __atomic_exchange_n(&s->single, 1, __ATOMIC_ACQ_REL) == 0;
}

void ompc_single_end(int nowait) {
    team *t = t_team;
    if (!t || t->n == 1) return;
    if (t_single) release(t, t_single);
    if (!nowait) team_barrier(t);
}

static pthread_mutex_t crit_lock = PTHREAD_MUTEX_INITIALIZER, atomic_lock = PTHREAD_MUTEX_INITIALIZER,
                       red_lock = PTHREAD_MUTEX_INITIALIZER, names_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct crit { char *name; pthread_mutex_t m; struct crit *next; } crit;
static crit *crits;
static pthread_mutex_t *crit_of(const char *name) {
    if (!name || !*name) return &crit_lock;
    pthread_mutex_lock(&names_lock);
    crit *c;
    for (c = crits; c; c = c->next)
        if (!strcmp(c->name, name)) break;
    if (!c) {
        c = calloc(1, sizeof *c);
        c->name = strdup(name);
        pthread_mutex_init(&c->m, NULL);
        c->next = crits;
        crits = c;
    }
    pthread_mutex_unlock(&names_lock);
    return &c->m;
}
void ompc_critical_begin(const char *name) { pthread_mutex_lock(crit_of(name)); }
void ompc_critical_end(const char *name) { pthread_mutex_unlock(crit_of(name)); }
void ompc_atomic_begin(void) { pthread_mutex_lock(&atomic_lock); }
void ompc_atomic_end(void) { pthread_mutex_unlock(&atomic_lock); }
void ompc_red_lock(void) { pthread_mutex_lock(&red_lock); }
void ompc_red_unlock(void) { pthread_mutex_unlock(&red_lock); }
void ompc_barrier(void) {
    team *t = t_team;
    if (t && t->n > 1) team_barrier(t);
}
int ompc_thread_num(void) { return t_team ? t_tid : 0; }

/* ---- the omp_* library (OpenMP 2.0, plus a few 3.0 queries) ---- */
void omp_set_num_threads(int n) { ICV(); icv_nthreads = n > 0 ? n : 1; }
int omp_get_num_threads(void) { return t_team ? t_team->n : 1; }
int omp_get_max_threads(void) { ICV(); return icv_nthreads; }
int omp_get_thread_num(void) { return ompc_thread_num(); }
int omp_get_num_procs(void) { long n = sysconf(_SC_NPROCESSORS_ONLN); return n > 0 ? (int)n : 1; }
int omp_in_parallel(void) { return t_team && t_team->n > 1; }
void omp_set_dynamic(int d) { ICV(); icv_dynamic = d != 0; }
int omp_get_dynamic(void) { ICV(); return icv_dynamic; }
void omp_set_nested(int d) { ICV(); icv_nested = d != 0; }
int omp_get_nested(void) { ICV(); return icv_nested; }
void omp_init_lock(omp_lock_t *l) { pthread_mutex_init((pthread_mutex_t *)l, NULL); }
void omp_destroy_lock(omp_lock_t *l) { pthread_mutex_destroy((pthread_mutex_t *)l); }
void omp_set_lock(omp_lock_t *l) { pthread_mutex_lock((pthread_mutex_t *)l); }
void omp_unset_lock(omp_lock_t *l) { pthread_mutex_unlock((pthread_mutex_t *)l); }
int omp_test_lock(omp_lock_t *l) { return pthread_mutex_trylock((pthread_mutex_t *)l) == 0; }
typedef struct { pthread_mutex_t m; pthread_t owner; int count; } nlock;
void omp_init_nest_lock(omp_nest_lock_t *l) { nlock *n = (nlock *)l; pthread_mutex_init(&n->m, NULL); n->count = 0; }
void omp_destroy_nest_lock(omp_nest_lock_t *l) { pthread_mutex_destroy(&((nlock *)l)->m); }
void omp_set_nest_lock(omp_nest_lock_t *l) {
    nlock *n = (nlock *)l;
    if (n->count > 0 && pthread_equal(n->owner, pthread_self())) { n->count++; return; }
    pthread_mutex_lock(&n->m);
    n->owner = pthread_self();
    n->count = 1;
}
void omp_unset_nest_lock(omp_nest_lock_t *l) {
    nlock *n = (nlock *)l;
    if (--n->count == 0) pthread_mutex_unlock(&n->m);
}
int omp_test_nest_lock(omp_nest_lock_t *l) {
    nlock *n = (nlock *)l;
    if (n->count > 0 && pthread_equal(n->owner, pthread_self())) return ++n->count;
    if (pthread_mutex_trylock(&n->m)) return 0;
    n->owner = pthread_self();
    n->count = 1;
    return 1;
}
double omp_get_wtime(void) { return ompcl_now(); }
double omp_get_wtick(void) { return 1e-9; }
void omp_set_schedule(omp_sched_t k, int c) { ICV(); icv_sched = k >= 1 && k <= 3 ? (int)k : 1; icv_chunk = c; }
void omp_get_schedule(omp_sched_t *k, int *c) { ICV(); *k = (omp_sched_t)icv_sched; *c = icv_chunk; }
int omp_get_thread_limit(void) { return INT_MAX; }
void omp_set_max_active_levels(int l) { (void)l; }
int omp_get_max_active_levels(void) { return 1; }
int omp_get_level(void) { return t_level; }
int omp_get_ancestor_thread_num(int l) { return l == 0 ? 0 : l == t_level ? ompc_thread_num() : -1; }
int omp_get_team_size(int l) { return l == 0 ? 1 : l == t_level ? omp_get_num_threads() : -1; }
int omp_get_active_level(void) { return omp_in_parallel() ? 1 : 0; }
#endif /* OMPCL_PTHREADS */
