/* ompcl runtime, part of one C file (see rt_base.c): per-file programs, kernel launch (single kernels and sequences), transfers, the OMPCL_PROFILE report. */
/* ---------------------------------------------------------------- modules, profile */
typedef struct rstat {
    int line, runs_cl, runs_cpu;
    int spread; /* launches over a 2- or 3-dimensional NDRange (one work-item per (i, j) ...) */
    double build, h2d, kern, d2h, cpu;
    double alloc, other; /* clCreateBuffer calls; the rest of the time in ompcl_region_opencl */
    size_t bytes_h2d, bytes_d2h;
    int warned;
    /* placement (see place_region): the last measured time of one run on each side, the GPU's
       only from runs that had to send data; why the last run went where it went */
    double last_cpu, last_gpu_send;
    int placed_cpu;
    int in_sequence; /* a kernel of a region of several: placed with its region, always the device */
    char why[160];
    /* several devices (rt_split.c): runs split and on one device (and why), the last split's
       devices and iterations per device, each device's measured speed (iterations/s) */
    int xruns, xone, xndev;
    double xshort; /* > 0: the split kernels took this long (ms, the slowest device): too short to split again */
    double xp2p;       /* copies between the devices (OMPCL_PEER): time (the slowest device's) and bytes */
    size_t xbytes_p2p;
    long long xcnt[MAXDEV];
    double xspeed[MAXDEV];
    char xwhy[200];
} rstat;
static void split_profile_line(const char *file, rstat *r);
struct mstate;
static int split_region(ompcl_module *m, struct mstate *s, int rid, rstat *r, int line, int hints, long long lb, long long st,
                        long long n, int nd, long long e0, long long e1, ompcl_arg *a, int na);

typedef struct mstate {
    int status; /* 0 not built, 1 built, -1 unusable, 2 built region by region */
    cl_program prog;
    cl_program *rprog; /* status 2: one program per region (-DOMPCL_ONLY=N) */
    int *rstatus;
    cl_kernel *kern;
    size_t *wgs;
    rstat *st;
    ompcl_module *m;
    char *opts; /* the build options used (m->options and what the device needs) */
    void *x;    /* the programs of the other devices (rt_split.c) */
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
    double tb = 0, th = 0, tk = 0, td = 0, tc = 0, ta = 0, to = 0;
    if (g_have_cl)
        fprintf(stderr, "ompcl-profile: device: %s (platform %s), results copied back %s; OMPCL_DEVICES=%s\n", g_devname, g_platname,
                g_eager ? "after each kernel" : "on the host's first access", g_devs_desc);
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
                    "d2h=%.3f ms (%zu B) cpu=%.3f ms spread=%d alloc=%.3f ms other=%.3f ms\n",
                    base_name(s->m->file), r->line, i, where, r->runs_cl + r->runs_cpu, r->build * 1e3, r->h2d * 1e3,
                    r->bytes_h2d, r->kern * 1e3, r->d2h * 1e3, r->bytes_d2h, r->cpu * 1e3, r->spread, r->alloc * 1e3,
                    r->other * 1e3);
            /* (no " region " on this line: one line per region is the format tools read) */
            if (r->why[0]) fprintf(stderr, "ompcl-profile: %s:%d placed on the %s\n", base_name(s->m->file), r->line, r->why);
            split_profile_line(base_name(s->m->file), r);
            tb += r->build; th += r->h2d; tk += r->kern; td += r->d2h; tc += r->cpu; ta += r->alloc; to += r->other;
        }
    }
    if (g_lazy_n || g_lazy_chunks)
        fprintf(stderr, "ompcl-profile: copied back on first host access: %zu blocks %.3f ms (%zu B), %zu chunks of 2 MiB alone\n",
                g_lazy_n, g_lazy_t * 1e3, g_lazy_bytes, g_lazy_chunks);
    fprintf(stderr, "ompcl-profile: total: build=%.3f ms h2d=%.3f ms kernel=%.3f ms d2h=%.3f ms cpu=%.3f ms alloc=%.3f ms other=%.3f ms\n",
            tb * 1e3, th * 1e3, tk * 1e3, td * 1e3, tc * 1e3, ta * 1e3, to * 1e3);
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
        s->st[rid].last_cpu = ompcl_now() - t0;
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
        /* the build options of this device: NVIDIA's gpu-scope fence for device locks; read-only
           global arrays in __constant memory unless one kernel would take more than the device has */
        char *opts = malloc(strlen(m->options) + 128);
        strcpy(opts, m->options);
        if (g_nv_cc) strcat(opts, " -DOMPCL_NV_FENCE");
        if (m->const_bytes > g_max_const || (cl_uint)m->const_args > g_max_const_args) {
            strcat(opts, " -DOMPCL_CONST=__global");
            if (g_profile)
                fprintf(stderr, "ompcl-profile: %s: read-only global arrays stay in __global memory (a kernel takes %zu B in %d arguments; '%s' allows %llu B in %u)\n",
                        base_name(m->file), m->const_bytes, m->const_args, g_devname, (unsigned long long)g_max_const, g_max_const_args);
        }
        free(s->opts);
        s->opts = opts;
        s->prog = build_src(m, s->opts, r, err, sizeof err);
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
        char *opts = malloc(strlen(s->opts) + 64);
        sprintf(opts, "%s -DOMPCL_ONLY=%d", s->opts, rid);
        s->rprog[rid] = build_src(m, opts, r, err, sizeof err);
        free(opts);
        s->rstatus[rid] = s->rprog[rid] ? 1 : -1;
        if (!s->rprog[rid]) warnf("%s:%d: OpenCL build failed (%s); the region runs on the CPU", base_name(m->file), line, err);
    }
    return s->rstatus[rid] == 1 ? s->rprog[rid] : NULL;
}

typedef struct use {
    blk *b;
    int written, tmp, konst;
} use;

static double tm_h2d, tm_d2h, tm_alloc;
static size_t by_h2d, by_d2h;
static double tm_all_h2d; /* every host-to-device copy so far: the measured transfer rate */
static size_t by_all_h2d;

static int wr(cl_mem mem, size_t off, size_t n, const void *p) {
    double t = ompcl_now();
    int e = write_buffer(mem, off, n, p);
    tm_h2d += ompcl_now() - t;
    by_h2d += n;
    tm_all_h2d += ompcl_now() - t;
    by_all_h2d += n;
    return e;
}
static int rd(cl_mem mem, size_t off, size_t n, void *p) {
    double t = ompcl_now();
    int e = cl.EnqueueReadBuffer(g_q, mem, 1, off, n, p, 0, NULL, NULL);
    tm_d2h += ompcl_now() - t;
    by_d2h += n;
    return e;
}

/* The index of block b in a launch's use table, a new entry if it has none. */
static int use_of(use *u, int *nu, blk *b) {
    int j;
    for (j = 0; j < *nu; j++)
        if (u[j].b == b) return j;
    u[j].b = b;
    u[j].written = u[j].konst = 0;
    u[j].tmp = b->is_global < 0;
    (*nu)++;
    return j;
}

/* A launch refused for a table of row pointers (rt_rows.c): said once, and in the profile. */
static void rows_refused(ompcl_module *m, rstat *r, int line, const char *why) {
    if (!r->warned++) warnf("%s:%d: %s; the region runs on the CPU", base_name(m->file), line, why);
    snprintf(r->why, sizeof r->why, "cpu: %s", why);
}

/* make the device copy of b current */
static int sync_to_device(blk *b) {
    cl_int err = 0;
    if (b->got) { /* chunks the host touched since a kernel left the block on the device */
        pthread_mutex_lock(&g_fault);
        settle_chunks(b);
        fault_unlock();
    }
    if (!b->mem) {
        double t = ompcl_now();
        b->mem = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, b->size ? b->size : 1, NULL, &err);
        tm_alloc += ompcl_now() - t;
        if (!b->mem || err) { b->mem = NULL; return -1; }
        b->dirty = 1;
    }
    if (b->unwritten) { /* nothing the host wrote: the device copy may start as it is */
        b->dirty = 0;
        return 0;
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

/* Phase of a launch: the device copy of b (not mapped by a target data construct unless inside
   a target region) current; 0, or -1 if it could not be made. */
static int block_on_device(blk *b) {
    if (b->held) return b->mem ? 0 : -1; /* in a target data environment: the device copy is current (rt_target.c) */
    if (!b->mem || b->dirty || !b->big || !b->prot || b->got || b->plo > b->base || b->base + b->size > b->phi)
        return sync_to_device(b);
    return 0;
}

/* b's whole pages read-only: host and device copies are equal, the next host write faults */
static void protect(blk *b) {
    if (!b->big || b->prot || b->is_global < 0 || g_notrack) return;
    install_handler();
    b->dirty = 0;
    xc_stale(b); /* writable until now: the host may have written it unseen */
    pthread_mutex_lock(&g_fault);
    if (mprotect(b->plo, b->phi - b->plo, PROT_READ) == 0) b->prot = PAGES_RO;
    fault_unlock();
}

/* A kernel wrote b. The edges that do not fill whole pages come back now; the whole pages come back
   now too into a fresh mapping swapped in (fetch_pages), or, with OMPCL_LAZY=1, become inaccessible
   and come back when the host first touches them, if ever. Returns 0, or -1 if the edges could not
   be read. */
static int written_on_device(blk *b) {
    b->unwritten = 0;
    xc_stale(b); /* only device 0's copy has the kernel's results */
    if (!b->big || b->is_global < 0 || g_notrack) {
        pthread_mutex_lock(&g_fault);
        unprotect(b);
        fault_unlock();
        return rd(b->mem, 0, b->size, b->base) ? -1 : 0;
    }
    if (b->plo > b->base && rd(b->mem, 0, b->plo - b->base, b->base)) return -1;
    if (b->base + b->size > b->phi && rd(b->mem, b->phi - b->base, b->base + b->size - b->phi, b->phi)) return -1;
    install_handler();
    pthread_mutex_lock(&g_fault);
    if (g_eager) {
        /* now: into a fresh mapping populated in one go (reading into pages the program never
           touched costs a fault a page) that replaces the pages, read-only after */
        double t0 = ompcl_now();
        if (b->prot == PAGES_NONE) host_access(b, 0);
        else {
            by_d2h += fetch_pages(b);
            tm_d2h += ompcl_now() - t0;
        }
    } else if (pages_to_none(b) == 0) {
        b->dirty = 0;
    }
    int stale_left = !g_eager && b->prot != PAGES_NONE; /* mprotect failed: copy the pages now */
    fault_unlock();
    if (stale_left && rd(b->mem, 0, b->size, b->base)) return -1;
    return 0;
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

#define OMPCL_DEVICE_MAX_COMPUTE_UNITS 0x1002 /* CL_DEVICE_MAX_COMPUTE_UNITS */

/* OMPCL_STRIDE_GROUPS (default 16): the work-groups per compute unit of a kernel that loops by
   the global size (OMPCL_HINT_STRIDE); 0: one iteration per work-item, as other kernels. */
static size_t stride_groups(void) {
    static long v = -1;
    if (v < 0) {
        const char *e = getenv("OMPCL_STRIDE_GROUPS");
        v = e && *e ? atol(e) : 16;
        if (v < 0) v = 0;
    }
    return (size_t)v;
}

/* The NDRange of a launch. nd 1: n work-items in groups of L (the kernels' __local reduction
   arrays hold 128), smaller groups (down to 32, a warp) when there are too few work-items to give
   every compute unit two groups (a loop over 4000 rows in groups of 128 keeps 32 of an H100's 132
   SMs busy; hand-written matrix-vector kernels take groups of 32). nd 2 or 3: one dimension per
   loop, extents e0 (fastest), [e1,] n; groups of 32 along dimension 0 (a warp on consecutive inner iterations, as hand-written kernels take
   them) and up to 8 along dimension 1, within the kernel's work-group limit; fewer where an
   extent is smaller; at most 65535 groups along dimensions 1 and 2 (the kernels loop over those
   dimensions by the global size). Returns the number of groups (0: nothing to run). */
static size_t ndrange(cl_kernel k, int nd, long long n, long long e0, long long e1, size_t L, int hints, size_t *gsz, size_t *lsz) {
    if (nd == -1) {
        /* a league of teams (the kernel asks for its team or thread and loops over the
           iterations by the global size): at most e0 groups (num_teams) of at most e1 work-items
           (thread_limit, num_threads; a power of two: the reduction trees need one); 0: any */
        size_t l = L;
        if (e1 > 0) while (l > 1 && (long long)l > e1) l /= 2;
        /* no thread_limit: teams of a warp, many of them (as GPU OpenMP implementations make
           leagues: SOLLVE's dist_schedule test expects more teams than its 16 chunks) */
        if (e1 <= 0 && l > 32) l = 32;
        long long g = n > 0 ? (n + (long long)l - 1) / (long long)l : 0;
        if (e0 > 0 && g > e0) g = e0;
        lsz[0] = l;
        gsz[0] = (size_t)g * l;
        return (size_t)g;
    }
    if (nd <= 1) {
        static cl_uint units;
        if (!units && (cl.GetDeviceInfo(g_dev, OMPCL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL) != CL_SUCCESS || !units))
            units = 1;
        while (L > 32 && n > 0 && (n + (long long)L - 1) / (long long)L < 2 * (long long)units) L /= 2;
        lsz[0] = L;
        size_t groups = n > 0 ? (size_t)((n + L - 1) / L) : 0;
        /* a kernel looping by the global size (OMPCL_HINT_STRIDE): enough groups to fill every
           compute unit (2048 resident work-items of a GPU's multiprocessor) and no more, so each
           work-item sums many iterations before its group's tree, and the host gets few partials */
        size_t cap = stride_groups() * (size_t)units;
        if ((hints & OMPCL_HINT_STRIDE) && cap && groups > cap) groups = cap;
        gsz[0] = groups * L;
        return groups;
    }
    long long ext[3] = {e0, nd == 3 ? e1 : n, n};
    size_t w = 0;
    cl.GetKernelWorkGroupInfo(k, g_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof w, &w, NULL);
    if (w < 1) w = 1;
    if (w > 256) w = 256;
    size_t groups = 1;
    size_t left = w;
    for (int d = 0; d < nd; d++) {
        size_t want = d == 0 ? 32 : d == 1 ? 8 : 1;
        size_t l = 1;
        while (l * 2 <= want && l * 2 <= left && (long long)l < ext[d]) l *= 2;
        left /= l;
        lsz[d] = l;
        size_t g = ext[d] > 0 ? (size_t)((ext[d] + l - 1) / l) : 0;
        if (d > 0 && g > 65535) g = 65535; /* CUDA's grid limit in y, z: the kernels loop there */
        gsz[d] = g * l;
        groups *= g;
    }
    return groups;
}

static void lock_warning(ompcl_module *m, int line) {
    warnf("%s:%d: the region's 'critical' sections need a device lock, and '%s' does not guarantee forward progress "
          "to diverged work-items (NVIDIA sm_70+ does; OMPCL_DEVICE_LOCKS=1 overrides); the region runs on the CPU",
          base_name(m->file), line, g_devname);
}

/* A region made of several kernels runs them all or none: before the first runs, each must be
   built and every block it uses known to the runtime. */
int ompcl_kernel_ready(ompcl_module *m, int rid, int line, ompcl_arg *a, int na) {
    pthread_mutex_lock(&g_launch);
    init();
    int ok = g_have_cl;
    mstate *s = ok ? mod_state(m) : NULL;
    rstat *r = ok ? &s->st[rid] : NULL;
    if (ok) r->line = line;
    if (ok) r->in_sequence = 1;
    /* device locks first: without them the region runs on the CPU, no need to build */
    for (int i = 0; i < na && ok; i++)
        if (a[i].kind == OMPCL_LOCKS && !g_devlocks) {
            ok = 0;
            if (!r->warned++) lock_warning(m, line);
        }
    if (ok) ok = kernel_for(m, s, rid, r, line) != NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_BUF) continue;
        blk *fb = tab_find(a[i].addr);
        int found = fb && !(a[i].rop && (char *)a[i].addr >= fb->base + fb->size);
        if (found && fb->held && !ompcl_in_target) {
            /* a host parallel region inside `target data` works on the host's copies */
            ok = 0;
            if (!r->warned++)
                warnf("%s:%d: '%s' is mapped to the device by a target data construct; the host parallel region runs on the CPU",
                      base_name(m->file), line, a[i].name);
            break;
        }
        for (int j = 0; j < na && !found; j++)
            if (a[j].kind == OMPCL_TMP && (char *)a[i].addr >= (char *)a[j].addr &&
                (char *)a[i].addr < (char *)a[j].addr + a[j].size + !a[j].rop) found = 1;
        if (!found) {
            ok = 0;
            if (!r->warned++)
                warnf("%s:%d: '%s' does not point into memory ompcl knows (malloc'd or global); the region runs on the CPU",
                      base_name(m->file), line, a[i].name);
        }
    }
    /* tables of row pointers: every row must be in memory ompcl knows (rt_rows.c) */
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_ROWS) continue;
        rowset rs;
        char why[200];
        const char *bad = rows_resolve(&a[i], &rs, why, sizeof why);
        if (bad) {
            ok = 0;
            rows_refused(m, r, line, bad);
        } else {
            rows_free(&rs);
        }
    }
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
    return ok;
}

/* Whether no two memory arguments of a kernel, one of them written, lie in the same block (else the
   kernel must keep whole rows in one work-item: see the translator's inner_loop_independent). */
int ompcl_no_alias(ompcl_arg *a, int na) {
    int ok = 1;
    pthread_mutex_lock(&g_lock);
    ok = rows_no_alias(a, na);
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_BUF && a[i].kind != OMPCL_TMP) continue;
        blk *bi = a[i].kind == OMPCL_BUF ? tab_find(a[i].addr) : NULL;
        for (int j = i + 1; j < na && ok; j++) {
            if (a[j].kind != OMPCL_BUF && a[j].kind != OMPCL_TMP) continue;
            if (!a[i].written && !a[j].written) continue;
            if (a[i].addr == a[j].addr) ok = 0;
            blk *bj = a[j].kind == OMPCL_BUF ? tab_find(a[j].addr) : NULL;
            if (bi && bj && bi == bj) ok = 0;
            /* a pointer into a local array (or just past it) that the kernel also takes whole */
            for (int t = 0; t < 2 && ok; t++) {
                ompcl_arg *x = t ? &a[j] : &a[i], *y = t ? &a[i] : &a[j];
                if (x->kind == OMPCL_TMP && y->kind == OMPCL_BUF && (char *)y->addr >= (char *)x->addr &&
                    (char *)y->addr <= (char *)x->addr + x->size) ok = 0;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return ok;
}

/* Whether the elements [A*p + B*q, +size) (A = a*st, B = b*st1 bytes) for 0 <= p < n, 0 <= q < n1
   are pairwise disjoint, so that work-items may take (p, q) pairs (the translator proved that each
   pair writes one element at that affine offset). A sufficient condition: along the smaller
   stride the elements do not overlap, and the larger stride steps over a whole run of the
   smaller one (row-major X[i*n + j] with n >= the inner trip count, column-major X[j*n + i], ...). */
int ompcl_disjoint(long long a, long long st, long long n, long long b, long long st1, long long n1, long long size) {
    if (n <= 0 || n1 <= 0) return 1;
    __int128 s0 = (__int128)a * st, s1 = (__int128)b * st1, c0 = n, c1 = n1;
    if (s0 < 0) s0 = -s0;
    if (s1 < 0) s1 = -s1;
    if (c0 == 1) s0 = 0;
    if (c1 == 1) s1 = 0;
    if (s0 > s1 || (s0 == s1 && c0 > c1)) { __int128 t = s0; s0 = s1; s1 = t; t = c0; c0 = c1; c1 = t; }
    /* s0 <= s1 now; a dimension of one element has stride 0 */
    if (c0 > 1 && s0 < size) return 0;
    if (c1 > 1 && s1 < s0 * (c0 - 1) + size) return 0;
    return 1;
}

/* A kernel of a sequence failed after earlier ones ran: the CPU version cannot redo the region. */
void ompcl_sequence_failed(ompcl_module *m, int line) {
    fprintf(stderr, "ompcl: error: %s:%d: a kernel of this region failed after earlier kernels of the region ran; "
                    "stopping (running the region again on the CPU would give wrong results)\n", base_name(m->file), line);
    exit(70);
}

/* Bytes a launch with these arguments must send to the device first (blocks with no device copy,
   host-dirty or untracked); g_lock held. */
static size_t bytes_to_send(ompcl_arg *a, int na) {
    size_t sum = 0;
    for (int i = 0; i < na; i++) {
        if (a[i].kind == OMPCL_TMP) sum += a[i].size;
        if (a[i].kind != OMPCL_BUF) continue;
        blk *b = tab_find(a[i].addr);
        int dup = 0;
        for (int j = 0; j < i && b; j++) dup |= a[j].kind == OMPCL_BUF && tab_find(a[j].addr) == b;
        if (b && !dup && (!b->mem || b->dirty || !b->prot)) sum += b->size;
    }
    return sum;
}

/* Where a single-kernel region runs (1 = the device), from what the runtime measured. A light kernel
   (O(1) work per work-item, from the translator) that must first send a lot of data runs on the CPU:
   there it reads the data at host-memory speed, on the device it would wait for the same bytes to
   cross the bus. Once both sides have been measured for such runs, the faster one is taken; a CPU
   run that took much longer than sending its bytes would tries the device once. Every other kernel,
   and every kernel of an OpenMP `target` region (the program asked for the device), runs on the
   device (OMPCL_PLACEMENT=device: always the device). */
#define SEND_LIMIT (1 << 20)
static int place_region(rstat *r, int light, size_t send) {
    const double h2d_rate = by_all_h2d > (1 << 24) ? by_all_h2d / tm_all_h2d : 10e9; /* B/s, measured */
    int dev = 1;
    if (g_place_device || ompcl_in_target || !light || send < SEND_LIMIT) {
        snprintf(r->why, sizeof r->why, "device: %s",
                 g_place_device    ? "OMPCL_PLACEMENT=device"
                 : ompcl_in_target ? "an OpenMP target region"
                 : !light          ? "a work-item loops or calls"
                                   : "its data is on the device");
    } else if (r->last_gpu_send > 0 && r->last_cpu > 0) {
        dev = r->last_gpu_send < r->last_cpu;
        snprintf(r->why, sizeof r->why, "%s: measured device with transfers %.3f ms, cpu %.3f ms", dev ? "device" : "cpu",
                 r->last_gpu_send * 1e3, r->last_cpu * 1e3);
    } else if (r->last_cpu > 0 && send / h2d_rate < r->last_cpu / 2) {
        snprintf(r->why, sizeof r->why, "device, trying it: cpu took %.3f ms, sending %zu B should take %.3f", r->last_cpu * 1e3, send,
                 send / h2d_rate * 1e3);
    } else {
        dev = 0;
        snprintf(r->why, sizeof r->why, "cpu: light kernel, %zu B to send%s", send, r->last_cpu > 0 ? ", cpu measured faster than sending" : "");
    }
    r->placed_cpu = !dev;
    return dev;
}

/* Phase of ompcl_region_opencl: the ephemeral blocks of a launch (its OMPCL_TMP arguments: local
   arrays and scalars copied in and out), a list through `next`, so that pointers into them
   resolve before the allocation table is searched. */
static blk *ephemeral_blocks(ompcl_arg *a, int na) {
    blk *eph = NULL;
    for (int i = 0; i < na; i++) {
        if (a[i].kind == OMPCL_TMP) {
            blk *b = calloc(1, sizeof *b);
            b->base = a[i].addr;
            b->size = a[i].size;
            b->is_global = a[i].rop ? -2 : -1; /* -2: a scalar or struct, no pointer one past its end is its */
            b->dirty = 1;
            b->next = eph;
            eph = b;
        }
    }
    return eph;
}

/* Phase of ompcl_region_opencl: the block an OMPCL_BUF or OMPCL_TMP argument points into (an
   ephemeral block of the launch, or one of the allocation table), or NULL when ompcl knows none.
   An object's block is never the one it is one past the end of (`rop`). */
static blk *arg_block(ompcl_arg *x, blk *eph) {
    blk *b = NULL;
    for (blk *e = eph; e && !b; e = e->next)
        if (x->kind == OMPCL_TMP ? (char *)x->addr == e->base
                                 : ((char *)x->addr >= e->base && (char *)x->addr < e->base + e->size)) b = e;
    if (!b && x->kind == OMPCL_BUF) {
        /* a block holding the address beats a local object it is one past the end of */
        blk *t = tab_find(x->addr);
        if (t && (char *)x->addr < t->base + t->size) b = t;
    }
    for (blk *e = eph; e && !b && x->kind == OMPCL_BUF && !x->rop; e = e->next)
        if ((char *)x->addr == e->base + e->size && e->is_global != -2) b = e;
    if (!b) b = tab_find(x->addr);
    if (b && x->kind == OMPCL_BUF && x->rop && (char *)x->addr >= b->base + b->size) b = NULL;
    return b;
}

/* The partials combined with the variable's value in type T; BITS: the cases of the bitwise
   operators, for integer types only. */
#define COMBINE(T, BITS)                                                                             \
    {                                                                                                \
        T acc = *(T *)x->addr;                                                                       \
        T *pp = (T *)part;                                                                           \
        for (size_t g = 0; g < groups; g++) switch (x->rop) {                                        \
            case 1: case 3: acc = acc + pp[g]; break;                                                \
            case 2: acc = acc * pp[g]; break;                                                        \
            BITS                                                                                     \
            case 7: acc = acc && pp[g]; break;                                                       \
            case 8: acc = acc || pp[g]; break;                                                       \
            case 9: if (pp[g] > acc) acc = pp[g]; break;                                             \
            case 10: if (pp[g] < acc) acc = pp[g]; break;                                            \
            }                                                                                        \
        *(T *)x->addr = acc;                                                                         \
    }
#define BITWISE                                                                                      \
    case 4: acc = acc & pp[g]; break;                                                                \
    case 5: acc = acc | pp[g]; break;                                                                \
    case 6: acc = acc ^ pp[g]; break;
#define COMB(T) COMBINE(T, )
#define COMBI(T) COMBINE(T, BITWISE)
/* Phase of ompcl_region_opencl: a reduction's per-work-group partial results (`part`, `groups` of
   them) combined on the host into the variable, with the reduction's operator (`rop`) in its type
   (`rtype`). (COMB and COMBI serve rt_split.c too.) */
static void combine_partials(ompcl_arg *x, char *part, size_t groups) {
    switch (x->rtype) {
    case 1: COMBI(int32_t) break;
    case 2: COMBI(uint32_t) break;
    case 3: COMBI(int64_t) break;
    case 4: COMBI(uint64_t) break;
    case 7: COMBI(int8_t) break;
    case 8: COMBI(uint8_t) break;
    case 9: COMBI(int16_t) break;
    case 10: COMBI(uint16_t) break;
    case 5: COMB(float) break;
    case 6: COMB(double) break;
    }
}

/* Phase of ompcl_region_opencl: the launch's temporary device buffers (reduction partials,
   locks, lastprivate values) and its ephemeral blocks, with their device copies, released. */
static void release_launch_memory(cl_mem *tmpmem, int na, blk *eph) {
    for (int i = 0; i < na; i++)
        if (tmpmem[i]) cl.ReleaseMemObject(tmpmem[i]);
    while (eph) {
        blk *nx = eph->next;
        if (eph->mem) cl.ReleaseMemObject(eph->mem);
        free(eph);
        eph = nx;
    }
}

/* Phase of ompcl_region_opencl, after the kernel ran: the results the host writes (reductions
   combined from their per-group partials, lastprivate values) read back, and the blocks the kernel
   may have written marked as current on the device only (lazy copy-back). Returns NULL, or the
   name of the OpenCL call that failed. */
static const char *read_back(ompcl_arg *a, int na, cl_mem *tmpmem, size_t groups, long long n, use *u, int nu) {
    const char *fail = NULL;
    /* results the host writes below: their blocks must be current first */
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_RED || a[i].kind == OMPCL_LASTP) host_range(a[i].addr, a[i].size, 1);
    /* reductions: finish the per-group partials on the host */
    for (int i = 0; i < na && !fail; i++) {
        ompcl_arg *x = &a[i];
        if (x->kind == OMPCL_RED && groups > 0) {
            char *part = malloc(groups * x->size);
            if (rd(tmpmem[i], 0, groups * x->size, part)) { fail = "clEnqueueReadBuffer"; free(part); break; }
            combine_partials(x, part, groups);
            free(part);
        } else if (x->kind == OMPCL_LASTP && n > 0) {
            if (rd(tmpmem[i], 0, x->size, x->addr)) { fail = "clEnqueueReadBuffer"; }
        }
    }
    /* what the region may have written: the host's copy is stale now (lazy copy-back) */
    pthread_mutex_lock(&g_lock);
    for (int j = 0; j < nu && !fail; j++)
        if (u[j].written && groups > 0 && !u[j].b->held && written_on_device(u[j].b)) fail = "clEnqueueReadBuffer";
    for (int j = 0; j < nu && !fail; j++)
        if (!u[j].b->held) protect(u[j].b);
    pthread_mutex_unlock(&g_lock);
    return fail;
}

int ompcl_region_opencl(ompcl_module *m, int rid, int line, int hints, long long lb, long long st, long long n,
                        int nd, long long e0, long long e1, ompcl_arg *a, int na) {
    pthread_mutex_lock(&g_launch);
    init();
    if (!g_have_cl) { pthread_mutex_unlock(&g_launch); return 0; }
    double t_entry = ompcl_now(); /* after init: the device's set-up is not the region's */
    mstate *s = mod_state(m);
    rstat *r = &s->st[rid];
    r->line = line;
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_LOCKS && !g_devlocks) {
            if (!r->warned++) lock_warning(m, line);
            pthread_mutex_unlock(&g_launch);
            return 0;
        }
    pthread_mutex_lock(&g_lock);
    size_t send = bytes_to_send(a, na);
    pthread_mutex_unlock(&g_lock);
    if (!r->in_sequence && !place_region(r, hints & 1, send)) { pthread_mutex_unlock(&g_launch); return 0; }
    double build_before = r->build;
    if (!kernel_for(m, s, rid, r, line)) { pthread_mutex_unlock(&g_launch); return 0; }
    if (g_ndev > 1) {
        /* several devices: the region in chunks, one per device, if it can be (rt_split.c) */
        int sr = split_region(m, s, rid, r, line, hints, lb, st, n, nd, e0, e1, a, na);
        if (sr >= 0) {
            if (g_handler) install_handler(); /* see install_handler */
            pthread_mutex_unlock(&g_launch);
            return sr;
        }
    }
    cl_int err = 0;
    cl_kernel k = s->kern[rid];
    size_t L = s->wgs[rid];
    /* the NDRange (see ndrange): groups in all, global and local sizes per dimension */
    size_t gsz[3], lsz[3];
    size_t groups = ndrange(k, nd, n, e0, e1, L, hints, gsz, lsz);
    tm_h2d = tm_d2h = tm_alloc = 0;
    by_h2d = by_d2h = 0;
    int ok = 1;
    use *u = calloc(na + 1, sizeof *u);
    int nu = 0;
    cl_mem *tmpmem = calloc(na + 1, sizeof *tmpmem);
    rowset *rs = calloc(na + 1, sizeof *rs); /* OMPCL_ROWS arguments (rt_rows.c) */
    const char *failname = NULL;
    pthread_mutex_lock(&g_lock);
    /* ephemeral blocks (local arrays and scalars) first, so pointers into them resolve */
    blk *eph = ephemeral_blocks(a, na);
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
            host_range_locked(x->addr, x->size, 0);
            SET(x->size, x->addr);
            break;
        case OMPCL_BUF:
        case OMPCL_TMP: {
            blk *b = arg_block(x, eph);
            if (!b) {
                ok = 0;
                if (!r->warned++)
                    warnf("%s:%d: '%s' does not point into memory ompcl knows (malloc'd or global); the region runs on the CPU",
                          base_name(m->file), line, x->name);
                failname = "";
                break;
            }
            int j = use_of(u, &nu, b);
            u[j].written |= x->written;
            u[j].konst |= x->kind == OMPCL_BUF && x->rtype == 1;
            if (u[j].written && u[j].konst) {
                /* a __constant argument whose block the kernel also writes through another pointer:
                   the constant cache would not see the writes */
                ok = 0;
                if (!r->warned++)
                    warnf("%s:%d: '%s' shares memory with a read-only global array the kernel reads as __constant; the region runs on the CPU",
                          base_name(m->file), line, x->name);
                failname = "";
                break;
            }
            if (b->held && !ompcl_in_target) {
                /* a host parallel region inside `target data`: it works on the host's copy */
                ok = 0;
                if (!r->warned++)
                    warnf("%s:%d: '%s' is mapped to the device by a target data construct; the host parallel region runs on the CPU",
                          base_name(m->file), line, x->name);
                failname = "";
                break;
            } else if (block_on_device(b)) {
                ok = 0;
                failname = b->held ? "clCreateBuffer" : "clCreateBuffer/clEnqueueWriteBuffer";
                break;
            }
            cl_long off = (char *)x->addr - b->base;
            SET(sizeof(cl_mem), &b->mem);
            SET(sizeof off, &off);
            break;
        }
        case OMPCL_ROWS: {
            /* rt_rows.c: the rows' blocks now, their buffers after every other argument */
            char why[200];
            const char *bad = rows_resolve(x, &rs[i], why, sizeof why);
            if (bad) { ok = 0; rows_refused(m, r, line, bad); failname = ""; break; }
            for (size_t k = 0; k < rs[i].nb && ok; k++)
                if (rs[i].blocks[k]->held) {
                    ok = 0;
                    rows_refused(m, r, line, "a row is mapped to the device by a target data construct");
                    failname = "";
                }
            if (ok && rs[i].nb == 1) {
                /* one block: its own device copy, tracked like any other argument's */
                blk *b = rs[i].blocks[0];
                int j = use_of(u, &nu, b);
                u[j].written |= x->written;
                if (u[j].konst) {
                    ok = 0;
                    rows_refused(m, r, line, "rows in a read-only global array the kernel reads as __constant");
                    failname = "";
                } else if (block_on_device(b)) {
                    ok = 0;
                    failname = "clCreateBuffer/clEnqueueWriteBuffer";
                }
            }
            rs[i].argi = ai;
            ai += 2;
            break;
        }
        case OMPCL_RED: {
            tmpmem[i] = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, (groups ? groups : 1) * x->size, NULL, &err);
            if (!tmpmem[i] || err) { ok = 0; failname = "clCreateBuffer"; break; }
            SET(sizeof(cl_mem), &tmpmem[i]); /* partials; the tree is in static __local memory */
            break;
        }
        case OMPCL_LOCKS: {
            /* every lock free: a fresh zeroed buffer per launch (a launch ends with all released) */
            void *zero = calloc(1, x->size);
            tmpmem[i] = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, x->size, NULL, &err);
            if (!tmpmem[i] || err || !zero || wr(tmpmem[i], 0, x->size, zero)) { ok = 0; failname = "clCreateBuffer"; free(zero); break; }
            free(zero);
            SET(sizeof(cl_mem), &tmpmem[i]);
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
    /* tables of row pointers (rt_rows.c): rows packed from several blocks must not share a block
       with another argument, one of the two written (two device copies of it) */
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_ROWS || rs[i].nb < 2) continue;
        for (int j = 0; j < nu && ok; j++)
            if ((a[i].written || u[j].written) && rows_in_block(&rs[i], u[j].b)) ok = 0;
        for (int j = 0; j < na && ok; j++)
            if (j != i && a[j].kind == OMPCL_ROWS && (a[i].written || a[j].written))
                for (size_t k = 0; k < rs[j].nb && ok; k++)
                    if (rows_in_block(&rs[i], rs[j].blocks[k])) ok = 0;
        if (!ok) {
            rows_refused(m, r, line, "rows in several blocks share one with another argument, one of them written");
            failname = "";
        }
    }
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_ROWS) continue;
        if (rows_upload(&rs[i])) { ok = 0; failname = "clCreateBuffer/clEnqueueWriteBuffer"; break; }
        cl_mem data = rs[i].nb == 1 ? rs[i].blocks[0]->mem : rs[i].data;
        if (cl.SetKernelArg(k, rs[i].argi, sizeof(cl_mem), &data) != CL_SUCCESS ||
            cl.SetKernelArg(k, rs[i].argi + 1, sizeof(cl_mem), &rs[i].offs) != CL_SUCCESS) {
            ok = 0;
            failname = "clSetKernelArg";
        }
    }
    pthread_mutex_unlock(&g_lock);
    double tk = 0;
    if (ok && groups > 0) {
        double t0 = ompcl_now();
        err = cl.EnqueueNDRangeKernel(g_q, k, nd > 1 ? (cl_uint)nd : 1, NULL, gsz, lsz, 0, NULL, NULL);
        if (!err) err = cl.Finish(g_q);
        tk = ompcl_now() - t0;
        if (err) { ok = 0; failname = "clEnqueueNDRangeKernel"; }
    }
    if (ok) {
        const char *f = read_back(a, na, tmpmem, groups, n, u, nu);
        if (f) { ok = 0; failname = f; }
    }
    for (int i = 0; i < na && ok; i++)
        if (a[i].kind == OMPCL_ROWS && groups > 0 && rows_copy_back(&rs[i])) { ok = 0; failname = "clEnqueueReadBuffer"; }
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_ROWS) rows_free(&rs[i]);
    free(rs);
    release_launch_memory(tmpmem, na, eph);
    if (!ok) {
        /* device copies may be stale now: forget them */
        for (int j = 0; j < nu; j++)
            if (!u[j].tmp) {
                pthread_mutex_lock(&g_fault);
                host_access(u[j].b, 1); /* a block an earlier kernel left on the device comes back */
                fault_unlock();
            }
        if (failname && *failname && !r->warned++)
            warnf("%s:%d: %s failed (%d); the region runs on the CPU", base_name(m->file), line, failname, err);
    } else {
        r->runs_cl++;
        if (nd > 1) r->spread++;
        r->h2d += tm_h2d;
        r->d2h += tm_d2h;
        r->kern += tk;
        r->bytes_h2d += by_h2d;
        r->bytes_d2h += by_d2h;
        if (send >= SEND_LIMIT) r->last_gpu_send = tm_h2d + tk + tm_d2h;
    }
    free(u);
    free(tmpmem);
    if (g_handler) install_handler(); /* see install_handler: the driver may have taken it away */
    if (ok) {
        r->alloc += tm_alloc;
        r->other += ompcl_now() - t_entry - (r->build - build_before) - tm_h2d - tk - tm_d2h - tm_alloc;
    }
    pthread_mutex_unlock(&g_launch);
    return ok;
}
