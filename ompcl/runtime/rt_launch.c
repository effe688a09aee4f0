/* ompcl runtime, part of one C file (see rt_base.c): per-file programs, kernel launch (single kernels and sequences), transfers, the OMPCL_PROFILE report. */
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
    char *opts; /* the build options used (m->options and what the device needs) */
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

/* Whether no two memory arguments of a kernel, one of them written, lie in the same block (else the
   kernel must keep whole rows in one work-item: see the translator's inner_loop_independent). */
int ompcl_no_alias(ompcl_arg *a, int na) {
    int ok = 1;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_BUF && a[i].kind != OMPCL_TMP) continue;
        blk *bi = a[i].kind == OMPCL_BUF ? tab_find(a[i].addr) : NULL;
        for (int j = i + 1; j < na && ok; j++) {
            if (a[j].kind != OMPCL_BUF && a[j].kind != OMPCL_TMP) continue;
            if (!a[i].written && !a[j].written) continue;
            if (a[i].addr == a[j].addr) ok = 0;
            blk *bj = a[j].kind == OMPCL_BUF ? tab_find(a[j].addr) : NULL;
            if (bi && bj && bi == bj) ok = 0;
        }
    }
    pthread_mutex_unlock(&g_lock);
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
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_LOCKS && !g_devlocks) {
            if (!r->warned++) lock_warning(m, line);
            pthread_mutex_unlock(&g_launch);
            return 0;
        }
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
            if (!b && x->kind == OMPCL_BUF) {
                /* a block holding the address beats a local object it is one past the end of */
                blk *t = tab_find(x->addr);
                if (t && (char *)x->addr < t->base + t->size) b = t;
            }
            for (blk *e = eph; e && !b && x->kind == OMPCL_BUF && !x->rop; e = e->next)
                if ((char *)x->addr == e->base + e->size) b = e;
            if (!b) b = tab_find(x->addr);
            if (b && x->kind == OMPCL_BUF && x->rop && (char *)x->addr >= b->base + b->size) b = NULL;
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
            if (j == nu) { u[nu].b = b; u[nu].written = 0; u[nu].konst = 0; u[nu].tmp = b->is_global < 0; nu++; }
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
            } else if (b->held) {
                /* in a target data environment: the device copy is current (rt_target.c) */
                if (!b->mem) { ok = 0; failname = "clCreateBuffer"; break; }
            } else if (!b->mem || b->dirty || !b->big || !b->prot || b->plo > b->base || b->base + b->size > b->phi) {
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
            if (u[j].written && groups > 0 && !b->held) {
                unprotect(b);
                if (rd(b->mem, 0, b->size, b->base)) { ok = 0; failname = "clEnqueueReadBuffer"; }
            }
        }
        for (int j = 0; j < nu && ok; j++)
            if (!u[j].b->held) protect(u[j].b);
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
