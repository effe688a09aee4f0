/* ompcl runtime, part of one C file (see rt_base.c): one region spread over several OpenCL devices.
 *
 * OMPCL_DEVICES picks the devices of the platform init chose (`all`, the default; `N`: the first N;
 * a list `0,2`; `split:K`: K logical devices made of the first one, each with its own context, so
 * their memory is as separate as that of K GPUs: the test mode of a machine with one device). Device
 * 0 is the runtime's usual device (g_dev, g_ctx, g_q, blk.mem); the others have a context and a
 * queue each, and their own build of every module's program.
 *
 * A single-kernel launch the translator marked splittable (OMPCL_HINT_SPLIT: the kernel computes
 * its loop variable as lb + id * st for id < n, so a chunk is just another lb and n) is cut into
 * contiguous chunks of the outer iteration space, one per device, in proportion to each device's
 * speed measured on the previous run of the same kernel (equal at first). Each device gets only
 * the bytes its chunk touches where the translator bounded them (ompcl_arg.sl: an affine range in
 * the loop variable), else the whole block. A written pointer must be bounded, and the devices'
 * written ranges of a block pairwise disjoint (checked here, at run time, from the chunks): then
 * each device's written range comes back to the host at once (no lazy copy-back for split
 * regions), and the host copy is the merged result. Where the ranges overlap (or are unbounded)
 * but the translator proved that each element is written by one iteration only (row spreading's
 * proof, OMPCL_HINT_ONE_WRITER: covariance's symmetric fill `s[j1][j2] = s[j2][j1] = ...`), each
 * device's range comes back into a scratch buffer and the bytes it changed are merged
 * (merge_back). Reductions: every device's per-group partials
 * are combined on the host with the original value once; lastprivate: the device with the last
 * chunk gives it.
 *
 * Residency: each device keeps its buffers between regions; blk.xc->lo/hi is the byte range where
 * device d's copy is known current (only whole pages of tracked blocks: edges and untracked blocks
 * are sent each time). A split region's written range becomes the only known range of each
 * device for that block (another device wrote the rest); host writes and single-device kernels
 * empty all ranges (xc_stale). Device 0 stays "wholly current" (blk.dirty == 0) only when the
 * split region did not write the block.
 *
 * Devices work concurrently: one host thread per device uploads its slices, launches and waits;
 * after every kernel has finished, one thread per device copies its written range back. A region
 * that cannot be split runs on device 0 as before; OMPCL_PROFILE says why.
 */

/* The devices of platform p (of `type`) that OMPCL_DEVICES names; returns device 0. */
static cl_device_id devices_choose(cl_platform_id p, cl_bitfield type, cl_device_id dflt) {
    const char *e = getenv("OMPCL_DEVICES");
    if (!e || !*e) e = "all";
    cl_device_id all[MAXDEV];
    cl_uint na = 0;
    if (cl.GetDeviceIDs(p, type, MAXDEV, all, &na) != CL_SUCCESS || na == 0) {
        all[0] = dflt;
        na = 1;
    }
    if (na > MAXDEV) na = MAXDEV;
    g_ndev = 0;
    if (!strcmp(e, "all")) {
        for (cl_uint i = 0; i < na; i++) g_xdev[g_ndev++] = all[i];
    } else if (!strncmp(e, "split:", 6)) {
        /* test mode: K logical devices on the first one */
        int k = atoi(e + 6);
        if (k < 1) k = 1;
        if (k > MAXDEV) k = MAXDEV;
        while (g_ndev < k) g_xdev[g_ndev++] = all[0];
    } else if (!strchr(e, ',')) {
        int k = atoi(e);
        if (k < 1) warnf("OMPCL_DEVICES=%s not understood (all, N, a list like 0,2 or split:K); using one device", e);
        for (int i = 0; i < k && i < (int)na; i++) g_xdev[g_ndev++] = all[i];
    } else {
        for (const char *c = e; *c;) {
            char *end;
            long v = strtol(c, &end, 10);
            if (end == c) break;
            if (v >= 0 && v < (long)na && g_ndev < MAXDEV) g_xdev[g_ndev++] = all[v];
            else warnf("OMPCL_DEVICES=%s: no device %ld (the platform has %u)", e, v, na);
            c = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') break;
        }
    }
    if (g_ndev == 0) {
        g_xdev[0] = dflt;
        g_ndev = 1;
    }
    snprintf(g_devs_desc, sizeof g_devs_desc, "%s (%d device%s)", e, g_ndev, g_ndev > 1 ? "s" : "");
    return g_xdev[0];
}

/* A context and a queue for every device but 0 (whose are g_ctx, g_q); a device whose set-up fails
   ends the list there. */
static void devices_open(const intptr_t *props) {
    g_xctx[0] = g_ctx;
    g_xq[0] = g_q;
    for (int d = 1; d < g_ndev; d++) {
        cl_int err = 0;
        g_xctx[d] = cl.CreateContext(props, 1, &g_xdev[d], NULL, NULL, &err);
        if (g_xctx[d] && !err) g_xq[d] = cl.CreateCommandQueue(g_xctx[d], g_xdev[d], 0, &err);
        if (!g_xctx[d] || !g_xq[d] || err) {
            warnf("OMPCL_DEVICES: device %d could not be set up (%d); using %d device%s", d, err, d, d > 1 ? "s" : "");
            g_ndev = d;
            break;
        }
    }
}

/* ---- per-module programs of devices 1.. */
typedef struct xmod {
    int status[MAXDEV]; /* the file's program on device d: 0 not built, 1 built, -1 failed */
    cl_program prog[MAXDEV];
    cl_kernel *kern[MAXDEV]; /* per region */
    int *rstatus[MAXDEV];    /* per region: 0 not tried, 1 kernel made, -1 none */
} xmod;

static cl_program xbuild(mstate *s, int d, const char *opts) {
    cl_int e = 0;
    const char *src = s->m->source;
    cl_program p = cl.CreateProgramWithSource(g_xctx[d], 1, &src, NULL, &e);
    if (!p || e) return NULL;
    if (cl.BuildProgram(p, 1, &g_xdev[d], opts, NULL, NULL) == CL_SUCCESS) return p;
    return NULL;
}

/* Region rid's kernel on device d (d > 0), built with device 0's options the first time (the
   whole file, or the region alone where the file did not build whole on device 0); NULL: the
   region cannot be split. */
static cl_kernel xkernel(mstate *s, int rid, int d, rstat *r) {
    if (!s->x) s->x = calloc(1, sizeof(xmod));
    xmod *x = s->x;
    int nr = s->m->nregions > 0 ? s->m->nregions : 1;
    if (!x->kern[d]) {
        x->kern[d] = calloc(nr, sizeof(cl_kernel));
        x->rstatus[d] = calloc(nr, sizeof(int));
    }
    if (x->rstatus[d][rid]) return x->kern[d][rid];
    x->rstatus[d][rid] = -1;
    double t0 = ompcl_now();
    cl_program p = NULL;
    if (s->status == 1) {
        if (x->status[d] == 0) {
            x->prog[d] = xbuild(s, d, s->opts ? s->opts : "");
            x->status[d] = x->prog[d] ? 1 : -1;
        }
        p = x->prog[d];
    } else if (s->status == 2) {
        char *opts = malloc(strlen(s->opts ? s->opts : "") + 64);
        sprintf(opts, "%s -DOMPCL_ONLY=%d", s->opts ? s->opts : "", rid);
        p = xbuild(s, d, opts);
        free(opts);
    }
    r->build += ompcl_now() - t0;
    if (!p) return NULL;
    char kn[64];
    cl_int e = 0;
    snprintf(kn, sizeof kn, "ompcl_r%d", rid);
    x->kern[d][rid] = cl.CreateKernel(p, kn, &e);
    if (e) x->kern[d][rid] = NULL;
    x->rstatus[d][rid] = x->kern[d][rid] ? 1 : -1;
    return x->kern[d][rid];
}

/* ---- the launch */
typedef struct xrange {
    size_t lo, hi; /* [lo, hi) bytes of a block; empty when lo >= hi */
} xrange;

static void xr_add(xrange *a, xrange b) {
    if (b.lo >= b.hi) return;
    if (a->lo >= a->hi) { *a = b; return; }
    if (b.lo < a->lo) a->lo = b.lo;
    if (b.hi > a->hi) a->hi = b.hi;
}

/* The bytes of block b that argument x's pointer touches in iterations [p0, p1) (a superset). */
static xrange arg_range(const ompcl_arg *x, const blk *b, long long lb, long long st, long long p0, long long p1) {
    xrange r = {0, 0};
    if (p1 <= p0) return r;
    if (!x->sl) { r.hi = b->size; return r; }
    __int128 i0 = (__int128)lb + (__int128)p0 * st, i1 = (__int128)lb + (__int128)(p1 - 1) * st;
    __int128 l0 = x->sl_alo * i0, l1 = x->sl_alo * i1, h0 = x->sl_ahi * i0, h1 = x->sl_ahi * i1;
    __int128 off = (char *)x->addr - b->base;
    __int128 lo = (l0 < l1 ? l0 : l1) + x->sl_lo + off, hi = (h0 > h1 ? h0 : h1) + x->sl_hi + off;
    if (lo < 0) lo = 0;
    if (hi > (__int128)b->size) hi = b->size;
    if (lo < hi) { r.lo = (size_t)lo; r.hi = (size_t)hi; }
    return r;
}

/* Where device d's copy of b is known current (whole pages of a tracked block only). */
static xrange valid_on(const blk *b, int d) {
    xrange v = {0, 0};
    if (!b->big || b->prot != PAGES_RO || g_notrack || b->is_global < 0) return v;
    size_t plo = b->plo - b->base, phi = b->phi - b->base;
    if (d == 0 && b->mem && !b->dirty) { v.lo = plo; v.hi = phi; return v; }
    if (!b->xc || b->xc->hi[d] <= b->xc->lo[d]) return v;
    v.lo = b->xc->lo[d] > plo ? b->xc->lo[d] : plo;
    v.hi = b->xc->hi[d] < phi ? b->xc->hi[d] : phi;
    if (v.lo >= v.hi) v.lo = v.hi = 0;
    return v;
}

typedef struct xsend {
    cl_mem mem;
    size_t off, len;
    char *tmp; /* copies back: NULL = into the host's block, else into this buffer (merged later) */
} xsend;

/* One device's work in one split launch. */
typedef struct xjob {
    int d;
    cl_kernel k;
    cl_command_queue q;
    long long lb, st, n; /* the chunk: loop variable start, step and iterations */
    size_t gsz[3], lsz[3], groups;
    int nd;
    ompcl_arg *a;
    int na;
    cl_mem *argmem;  /* per argument: this device's buffer (BUF) or scratch (RED, LASTP) */
    cl_long *argoff; /* per argument: the byte offset into it (BUF) */
    xsend *send;     /* uploads before the kernel */
    int nsend;
    char *base_of_send; /* (host addresses: block base + off) */
    blk **send_blk;
    xsend *back; /* copies back after every kernel finished */
    blk **back_blk;
    int nback;
    char **part;      /* per RED argument: this device's partials (host) */
    int last;         /* this device has the last chunk: it gives lastprivate values */
    double t_h2d, t_k, t_d2h;
    size_t b_h2d, b_d2h;
    cl_int err;
    const char *fail;
} xjob;

/* Phase 1 of a device: uploads, arguments, the kernel, and its partial results. */
static void *xjob_run(void *p) {
    xjob *j = p;
    double t0 = ompcl_now();
    for (int i = 0; i < j->nsend && !j->err; i++) {
        xsend *s = &j->send[i];
        j->err = cl.EnqueueWriteBuffer(j->q, s->mem, 0, s->off, s->len, j->send_blk[i]->base + s->off, 0, NULL, NULL);
        j->b_h2d += s->len;
        if (j->err) j->fail = "clEnqueueWriteBuffer";
    }
    if (!j->err && j->nsend && (j->err = cl.Finish(j->q))) j->fail = "clFinish";
    j->t_h2d = ompcl_now() - t0;
    cl_uint ai = 0;
    cl_long lb = j->lb, n = j->n, st = j->st;
#define XSET(sz, v) do { if (!j->err && (j->err = cl.SetKernelArg(j->k, ai++, sz, v))) j->fail = "clSetKernelArg"; } while (0)
    XSET(sizeof lb, &lb);
    XSET(sizeof st, &st);
    XSET(sizeof n, &n);
    for (int i = 0; i < j->na; i++) {
        ompcl_arg *x = &j->a[i];
        switch (x->kind) {
        case OMPCL_VAL: XSET(x->size, x->addr); break;
        case OMPCL_BUF:
            XSET(sizeof(cl_mem), &j->argmem[i]);
            XSET(sizeof(cl_long), &j->argoff[i]);
            break;
        case OMPCL_RED:
        case OMPCL_LASTP: XSET(sizeof(cl_mem), &j->argmem[i]); break;
        }
    }
#undef XSET
    t0 = ompcl_now();
    if (!j->err && j->groups > 0) {
        j->err = cl.EnqueueNDRangeKernel(j->q, j->k, j->nd > 1 ? (cl_uint)j->nd : 1, NULL, j->gsz, j->lsz, 0, NULL, NULL);
        if (!j->err) j->err = cl.Finish(j->q);
        if (j->err) j->fail = "clEnqueueNDRangeKernel";
    }
    j->t_k = ompcl_now() - t0;
    t0 = ompcl_now();
    for (int i = 0; i < j->na && !j->err; i++) {
        ompcl_arg *x = &j->a[i];
        if (x->kind == OMPCL_RED && j->groups > 0) {
            j->err = cl.EnqueueReadBuffer(j->q, j->argmem[i], 1, 0, j->groups * x->size, j->part[i], 0, NULL, NULL);
            j->b_d2h += j->groups * x->size;
        } else if (x->kind == OMPCL_LASTP && j->last) {
            j->err = cl.EnqueueReadBuffer(j->q, j->argmem[i], 1, 0, x->size, j->part[i], 0, NULL, NULL);
            j->b_d2h += x->size;
        }
        if (j->err) j->fail = "clEnqueueReadBuffer";
    }
    j->t_d2h = ompcl_now() - t0;
    return NULL;
}

/* Phase 2 of a device: its written ranges back into the host's memory. */
static void *xjob_back(void *p) {
    xjob *j = p;
    double t0 = ompcl_now();
    for (int i = 0; i < j->nback && !j->err; i++) {
        xsend *s = &j->back[i];
        char *dst = s->tmp ? s->tmp : j->back_blk[i]->base + s->off;
        j->err = cl.EnqueueReadBuffer(j->q, s->mem, 1, s->off, s->len, dst, 0, NULL, NULL);
        j->b_d2h += s->len;
        if (j->err) j->fail = "clEnqueueReadBuffer";
    }
    j->t_d2h += ompcl_now() - t0;
    return NULL;
}

/* Runs fn over every job, one thread per device beyond the first (the calling thread runs job 0). */
static void xjobs(xjob *jobs, int nj, void *(*fn)(void *)) {
    pthread_t th[MAXDEV];
    int started[MAXDEV] = {0};
    for (int i = 1; i < nj; i++) started[i] = pthread_create(&th[i], NULL, fn, &jobs[i]) == 0;
    for (int i = 1; i < nj; i++)
        if (!started[i]) fn(&jobs[i]);
    if (nj > 0) fn(&jobs[0]);
    for (int i = 1; i < nj; i++)
        if (started[i]) pthread_join(th[i], NULL);
}

/* The results of block b that several devices wrote in overlapping ranges (each element by one
   of them): a byte that a device's copy holds differently from the host's copy before the region
   is one that device wrote (a device's copy was current over its whole range before the kernel,
   and no other device writes what it writes). A write of the value already there changes nothing
   either way. */
static void merge_back(blk *b, xjob *jobs, int ndev) {
    xrange all = {0, 0};
    for (int d = 0; d < ndev; d++)
        for (int i = 0; i < jobs[d].nback; i++)
            if (jobs[d].back_blk[i] == b) xr_add(&all, (xrange){jobs[d].back[i].off, jobs[d].back[i].off + jobs[d].back[i].len});
    if (all.lo >= all.hi) return;
    char *orig = malloc(all.hi - all.lo);
    if (!orig) {
        fprintf(stderr, "ompcl: error: out of memory merging a split region's results; stopping\n");
        exit(70);
    }
    memcpy(orig, b->base + all.lo, all.hi - all.lo);
    for (int d = 0; d < ndev; d++)
        for (int i = 0; i < jobs[d].nback; i++) {
            xsend *s = &jobs[d].back[i];
            if (jobs[d].back_blk[i] != b || !s->tmp) continue;
            const char *was = orig + (s->off - all.lo);
            char *host = b->base + s->off;
            for (size_t x = 0; x < s->len;) {
                /* equal runs of 64 bytes are skipped whole */
                size_t run = s->len - x < 64 ? s->len - x : 64;
                if (!memcmp(s->tmp + x, was + x, run)) { x += run; continue; }
                for (size_t y = x; y < x + run; y++)
                    if (s->tmp[y] != was[y]) host[y] = s->tmp[y];
                x += run;
            }
        }
    free(orig);
}

/* OMPCL_SPLIT_MERGE=1: a region whose devices' written ranges overlap, each element written by
   one iteration (covariance's symmetric fill), is split and its results merged byte by byte
   (merge_back). Off by default: each device then copies back nearly the whole array and the host
   compares all of it (on 4 H200s, PolyBench's covariance at 4096 took 13x its one-GPU time). */
static int split_merge(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("OMPCL_SPLIT_MERGE");
        v = e && *e && strcmp(e, "0") != 0;
    }
    return v;
}

/* OMPCL_SPLIT_MIN_MS (default 1): a region whose split kernels took less (the slowest device)
   runs on one device from then on. */
static double split_min_ms(void) {
    static double v = -1;
    if (v < 0) {
        const char *e = getenv("OMPCL_SPLIT_MIN_MS");
        v = e && *e ? atof(e) : 1.0;
        if (v < 0) v = 0;
    }
    return v;
}

/* The work of the iteration whose loop variable is i (OMPCL_WORK): its inner trip count, and 1
   for what every iteration costs anyway. */
static double iter_work(const ompcl_arg *w, long long i) {
    double v = (double)w->sl_alo * (double)i + (double)w->sl_lo;
    return (v > 0 ? v : 0) + 1;
}

/* Why region r does not split this time: kept for the profile, and -1 (run on device 0). */
static int no_split(rstat *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->xwhy, sizeof r->xwhy, fmt, ap);
    va_end(ap);
    r->xone++;
    return -1;
}

/* Runs region rid split over the devices: 1 done, 0 failed before any result reached the host (the
   CPU version runs), -1 not split (the caller runs it on device 0). g_launch held. */
static int split_region(ompcl_module *m, mstate *s, int rid, rstat *r, int line, int hints, long long lb, long long st,
                        long long n, int nd, long long e0, long long e1, ompcl_arg *a, int na) {
    (void)line;
    if (!(hints & OMPCL_HINT_SPLIT)) {
        const char *why = "the kernel's shape";
        for (int i = 0; i < na; i++)
            if (a[i].kind == OMPCL_NOTE) why = a[i].name;
        return no_split(r, "%s", why);
    }
    if (ompcl_in_target) return no_split(r, "a kernel of an OpenMP target construct");
    if (r->xshort > 0)
        return no_split(r, "its kernel took %.3f ms split over %d devices, under OMPCL_SPLIT_MIN_MS=%g: not worth its transfers",
                        r->xshort, r->xndev, split_min_ms());
    if (nd < 0) return no_split(r, "a league of teams");
    /* every element written is written by one iteration only (the translator's proof, checked at
       launch): written ranges that overlap can be merged element by element */
    int one_writer = (hints & OMPCL_HINT_ONE_WRITER) != 0;
    int ndev = g_ndev;
    if (n < ndev) ndev = (int)(n > 0 ? n : 1);
    if (ndev < 2) return no_split(r, "%lld iterations", n);
    for (int i = 0; i < na; i++) {
        if (a[i].kind == OMPCL_LOCKS) return no_split(r, "critical sections (device locks)");
        if (a[i].kind == OMPCL_TMP) return no_split(r, "uses the local object '%s' (copied per launch)", a[i].name);
    }
    cl_kernel kern[MAXDEV];
    kern[0] = s->kern[rid];
    for (int d = 1; d < ndev; d++)
        if (!(kern[d] = xkernel(s, rid, d, r))) return no_split(r, "the kernel did not build on device %d", d);

    /* the chunks: contiguous, of work in proportion to each device's measured speed (work/s;
       equal at first). Work: iterations, or a triangle's row lengths (OMPCL_WORK) */
    long long cnt[MAXDEV], first[MAXDEV];
    double wsum = 0, w[MAXDEV];
    int measured = 1;
    for (int d = 0; d < ndev; d++) measured &= r->xspeed[d] > 0;
    for (int d = 0; d < ndev; d++) wsum += w[d] = measured ? r->xspeed[d] : 1.0;
    const ompcl_arg *work = NULL;
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_WORK) work = &a[i];
    double total = work ? 0 : (double)n, acc = 0, wd[MAXDEV];
    if (work)
        for (long long p = 0; p < n; p++) total += iter_work(work, lb + p * st);
    long long given = 0, p = 0;
    for (int d = 0; d < ndev; d++) {
        /* the first iterations until this device's share of the work */
        double goal = total * (w[d] / wsum) + acc;
        if (!work) cnt[d] = (long long)(goal + 0.5) - given;
        else {
            double c = acc;
            while (p < n && c + iter_work(work, lb + p * st) / 2 < goal) c += iter_work(work, lb + p++ * st);
            cnt[d] = p - given;
        }
        if (d == ndev - 1) cnt[d] = n - given;
        if (cnt[d] < 1) cnt[d] = 1; /* every device some work (its speed is measured again) */
        if (given + cnt[d] > n - (ndev - 1 - d)) cnt[d] = n - (ndev - 1 - d) - given;
        first[d] = given;
        given += cnt[d];
        p = given;
        wd[d] = 0;
        if (!work) wd[d] = (double)cnt[d];
        else
            for (long long q = first[d]; q < given; q++) wd[d] += iter_work(work, lb + q * st);
        acc += wd[d];
    }

    /* the blocks: each argument's block, and per device the bytes it needs and writes */
    pthread_mutex_lock(&g_lock);
    blk **ab = calloc(na + 1, sizeof *ab);
    blk *ub[256];
    int nub = 0, why = 0;
    const char *wname = NULL;
    for (int i = 0; i < na; i++) {
        if (a[i].kind != OMPCL_BUF) continue;
        blk *b = tab_find(a[i].addr);
        if (b && a[i].rop && (char *)a[i].addr >= b->base + b->size) b = NULL;
        if (!b || b->held) { why = b ? 2 : 1; wname = a[i].name; break; }
        if (a[i].written && !a[i].sl && !one_writer) { why = 3; wname = a[i].name; break; }
        for (int q = 0; q < na; q++) /* a __constant argument whose block another one writes: see ompcl_region_opencl */
            if (q != i && a[q].kind == OMPCL_BUF && (a[q].rtype == 1 || a[i].rtype == 1) && (a[q].written || a[i].written) &&
                tab_find(a[q].addr) == b) why = 1;
        if (why) break;
        ab[i] = b;
        int j;
        for (j = 0; j < nub && ub[j] != b; j++) {}
        if (j == nub) {
            if (nub == 256) { why = 4; break; }
            ub[nub++] = b;
        }
    }
    /* need[d][j], wrote[d][j] */
    xrange(*need)[256] = why ? NULL : calloc(ndev, sizeof *need);
    xrange(*wrote)[256] = why ? NULL : calloc(ndev, sizeof *wrote);
    for (int d = 0; d < ndev && !why; d++)
        for (int i = 0; i < na; i++) {
            if (!ab[i]) continue;
            int j;
            for (j = 0; ub[j] != ab[i]; j++) {}
            xrange x = arg_range(&a[i], ab[i], lb, st, first[d], first[d] + cnt[d]);
            xr_add(&need[d][j], x);
            if (a[i].written) xr_add(&wrote[d][j], x);
        }
    /* every written byte of a device inside no other device's written range; else, if one
       iteration alone writes each element, the block's results are merged (merge[j]) */
    int merge[256] = {0};
    for (int j = 0; j < nub && !why; j++)
        for (int d = 0; d < ndev && !why; d++)
            for (int e = d + 1; e < ndev && !why; e++) {
                xrange x = wrote[d][j], y = wrote[e][j];
                if (x.lo < x.hi && y.lo < y.hi && x.lo < y.hi && y.lo < x.hi) {
                    if (one_writer && split_merge()) {
                        merge[j] = 1;
                        continue;
                    }
                    why = one_writer ? 6 : 5;
                    for (int i = 0; i < na; i++)
                        if (ab[i] == ub[j] && a[i].written) wname = a[i].name;
                }
            }
    if (why) {
        pthread_mutex_unlock(&g_lock);
        free(ab);
        free(need);
        free(wrote);
        if (why == 1) return -1; /* the caller's path says it (the region runs on the CPU) */
        if (why == 2) return no_split(r, "'%s' is mapped by a target data construct", wname);
        if (why == 3) return no_split(r, "writes through '%s' where the translator cannot bound the bytes per iteration", wname);
        if (why == 4) return no_split(r, "more than 256 blocks");
        if (why == 6)
            return no_split(r, "the devices' written ranges of '%s' overlap: merging them costs more than the split saves (OMPCL_SPLIT_MERGE=1 merges)", wname);
        return no_split(r, "the devices' written ranges of '%s' would overlap", wname);
    }
    /* the host's copy current (a single-device kernel may have left newer data on device 0) */
    for (int j = 0; j < nub; j++) {
        pthread_mutex_lock(&g_fault);
        host_access(ub[j], 0);
        pthread_mutex_unlock(&g_fault);
    }
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_VAL) host_range_locked(a[i].addr, a[i].size, 0);

    double t_entry = ompcl_now();
    int ok = 1;
    cl_int err = 0;
    const char *failname = NULL;
    /* buffers: a whole-size one per device and block */
    int d0whole[256];
    for (int j = 0; j < nub; j++) {
        blk *b = ub[j];
        d0whole[j] = valid_on(b, 0).hi > 0 && b->mem && !b->dirty;
        if (!b->xc) b->xc = calloc(1, sizeof(xcopy));
        for (int d = 0; d < ndev && ok; d++) {
            cl_mem *pm = d == 0 ? &b->mem : &b->xc->mem[d];
            if (*pm) continue;
            *pm = cl.CreateBuffer(g_xctx[d], CL_MEM_READ_WRITE, b->size ? b->size : 1, NULL, &err);
            if (!*pm || err) { *pm = NULL; ok = 0; failname = "clCreateBuffer"; }
            if (d == 0) b->dirty = 1;
        }
    }
    /* the jobs */
    xjob jobs[MAXDEV];
    memset(jobs, 0, sizeof jobs);
    size_t L = s->wgs[rid];
    int lastdev = ndev - 1;
    for (int d = 0; d < ndev && ok; d++) {
        xjob *jb = &jobs[d];
        jb->d = d;
        jb->k = kern[d];
        jb->q = g_xq[d];
        jb->lb = lb + first[d] * st;
        jb->st = st;
        jb->n = cnt[d];
        jb->nd = nd;
        jb->groups = ndrange(s->kern[rid], nd, cnt[d], e0, e1, L, jb->gsz, jb->lsz);
        jb->a = a;
        jb->na = na;
        jb->argmem = calloc(na + 1, sizeof(cl_mem));
        jb->argoff = calloc(na + 1, sizeof(cl_long));
        jb->part = calloc(na + 1, sizeof(char *));
        jb->send = calloc(2 * nub + 1, sizeof(xsend));
        jb->send_blk = calloc(2 * nub + 1, sizeof(blk *));
        jb->back = calloc(nub + 1, sizeof(xsend));
        jb->back_blk = calloc(nub + 1, sizeof(blk *));
        jb->last = d == lastdev;
        for (int i = 0; i < na && ok; i++) {
            ompcl_arg *x = &a[i];
            if (x->kind == OMPCL_BUF) {
                jb->argmem[i] = d == 0 ? ab[i]->mem : ab[i]->xc->mem[d];
                jb->argoff[i] = (char *)x->addr - ab[i]->base;
            } else if (x->kind == OMPCL_RED || x->kind == OMPCL_LASTP) {
                size_t bytes = x->kind == OMPCL_RED ? (jb->groups ? jb->groups : 1) * x->size : x->size;
                jb->argmem[i] = cl.CreateBuffer(g_xctx[d], CL_MEM_READ_WRITE, bytes, NULL, &err);
                jb->part[i] = malloc(bytes);
                if (!jb->argmem[i] || err) { jb->argmem[i] = NULL; ok = 0; failname = "clCreateBuffer"; }
            }
        }
        /* uploads: what the device needs and does not hold (a written block: all of its written
           range too, so the bytes the kernel does not write there are current after it) */
        for (int j = 0; j < nub; j++) {
            blk *b = ub[j];
            cl_mem mem = d == 0 ? b->mem : b->xc->mem[d];
            if (wrote[d][j].lo < wrote[d][j].hi) {
                jb->back[jb->nback].mem = mem;
                jb->back[jb->nback].off = wrote[d][j].lo;
                jb->back[jb->nback].len = wrote[d][j].hi - wrote[d][j].lo;
                jb->back[jb->nback].tmp = merge[j] ? malloc(wrote[d][j].hi - wrote[d][j].lo) : NULL;
                if (merge[j] && !jb->back[jb->nback].tmp) { ok = 0; failname = "malloc"; }
                jb->back_blk[jb->nback++] = b;
            }
            /* nothing the host wrote: no data needed (but a merged block's copies must equal the
               host's, which merge_back compares them with) */
            if (b->unwritten && !merge[j]) continue;
            xrange nr = need[d][j], v = valid_on(b, d);
            if (nr.lo >= nr.hi) continue;
            xrange parts[2] = {{nr.lo, nr.hi}, {0, 0}};
            if (v.lo < v.hi && v.lo < nr.hi && nr.lo < v.hi) {
                parts[0].hi = v.lo > nr.lo ? v.lo : nr.lo;
                parts[1].lo = v.hi < nr.hi ? v.hi : nr.hi;
                parts[1].hi = nr.hi;
            }
            for (int q = 0; q < 2; q++)
                if (parts[q].lo < parts[q].hi) {
                    jb->send[jb->nsend].mem = mem;
                    jb->send[jb->nsend].off = parts[q].lo;
                    jb->send[jb->nsend].len = parts[q].hi - parts[q].lo;
                    jb->send_blk[jb->nsend++] = b;
                }
        }
    }
    pthread_mutex_unlock(&g_lock);
    double t_run = ompcl_now();
    if (ok) {
        xjobs(jobs, ndev, xjob_run);
        for (int d = 0; d < ndev; d++)
            if (jobs[d].err) { ok = 0; err = jobs[d].err; failname = jobs[d].fail; }
    }
    double t_k_wall = ompcl_now() - t_run;
    pthread_mutex_lock(&g_lock);
    if (ok) {
        /* the results: written ranges into the host's memory (writable meanwhile) */
        pthread_mutex_lock(&g_fault);
        for (int j = 0; j < nub; j++) {
            int w = 0;
            for (int d = 0; d < ndev; d++) w |= wrote[d][j].lo < wrote[d][j].hi;
            if (w) unprotect(ub[j]);
        }
        pthread_mutex_unlock(&g_fault);
        xjobs(jobs, ndev, xjob_back);
        for (int j = 0; j < nub; j++)
            if (merge[j]) merge_back(ub[j], jobs, ndev);
        for (int d = 0; d < ndev; d++)
            if (jobs[d].err) {
                /* part of the results reached the host: the CPU version cannot redo the region */
                fprintf(stderr, "ompcl: error: %s:%d: copying a split region's results back failed (%s: %d); stopping\n",
                        base_name(m->file), line, jobs[d].fail, (int)jobs[d].err);
                exit(70);
            }
        /* the new state: host current everywhere (pages read-only again, tracked), each device
           current in what it needed (read-only blocks) or only in what it wrote (written ones) */
        for (int j = 0; j < nub; j++) {
            blk *b = ub[j];
            int w = 0;
            for (int d = 0; d < ndev; d++) w |= wrote[d][j].lo < wrote[d][j].hi;
            xrange keep[MAXDEV];
            for (int d = 0; d < ndev; d++) {
                xrange v = valid_on(b, d);
                keep[d] = v;
                if (w) keep[d] = merge[j] ? (xrange){0, 0} : wrote[d][j]; /* merged: each device lacks the others' elements */
                else if (b->unwritten) keep[d] = (xrange){0, 0}; /* nothing was sent: the device holds whatever it held */
                else if (need[d][j].lo < need[d][j].hi && (v.hi <= v.lo || (need[d][j].lo <= v.hi && v.lo <= need[d][j].hi)))
                    xr_add(&keep[d], need[d][j]); /* overlapping or adjacent: one range */
            }
            if (w) b->unwritten = 0;
            protect(b); /* (empties the ranges of a block that was writable: set below) */
            for (int d = 0; d < ndev; d++) {
                b->xc->lo[d] = keep[d].lo;
                b->xc->hi[d] = keep[d].hi;
            }
            for (int d = ndev; d < MAXDEV; d++) b->xc->lo[d] = b->xc->hi[d] = 0;
            /* device 0 wholly current only if it was and nobody wrote */
            b->dirty = !(d0whole[j] && !w);
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (ok) {
        for (int i = 0; i < na; i++)
            if (a[i].kind == OMPCL_RED || a[i].kind == OMPCL_LASTP) host_range(a[i].addr, a[i].size, 1);
        for (int i = 0; i < na; i++) {
            ompcl_arg *x = &a[i];
            if (x->kind == OMPCL_RED) {
                /* every device's partials in one array, combined with the original value once */
                size_t groups = 0;
                for (int d = 0; d < ndev; d++) groups += jobs[d].groups;
                char *part = malloc((groups ? groups : 1) * x->size);
                size_t at = 0;
                for (int d = 0; d < ndev; d++) {
                    memcpy(part + at * x->size, jobs[d].part[i], jobs[d].groups * x->size);
                    at += jobs[d].groups;
                }
                combine_partials(x, part, groups);
                free(part);
            } else if (x->kind == OMPCL_LASTP) {
                memcpy(x->addr, jobs[lastdev].part[i], x->size);
            }
        }
    } else {
        /* nothing reached the host: forget what the devices hold of the written blocks, run the CPU version */
        pthread_mutex_lock(&g_lock);
        for (int j = 0; j < nub; j++) {
            xc_stale(ub[j]);
            ub[j]->dirty = 1;
        }
        pthread_mutex_unlock(&g_lock);
        if (failname && !r->warned++)
            warnf("%s:%d: %s failed (%d) in a region split over %d devices; the region runs on the CPU", base_name(m->file), line,
                  failname, (int)err, ndev);
    }
    /* profile, and the speeds for the next run */
    if (ok) {
        double th = 0, tk = 0, td = 0, busy = 0;
        size_t bh = 0, bd = 0;
        for (int d = 0; d < ndev; d++) {
            if (jobs[d].t_h2d > th) th = jobs[d].t_h2d;
            if (jobs[d].t_k > tk) tk = jobs[d].t_k;
            if (jobs[d].t_d2h > td) td = jobs[d].t_d2h;
            if (jobs[d].t_h2d + jobs[d].t_k + jobs[d].t_d2h > busy) busy = jobs[d].t_h2d + jobs[d].t_k + jobs[d].t_d2h;
            bh += jobs[d].b_h2d;
            bd += jobs[d].b_d2h;
            /* (averaged with the previous measure: one noisy run moves the split half as far) */
            if (jobs[d].t_k > 0 && cnt[d] > 0)
                r->xspeed[d] = r->xspeed[d] > 0 ? (r->xspeed[d] + wd[d] / jobs[d].t_k) / 2 : wd[d] / jobs[d].t_k;
            r->xcnt[d] = cnt[d];
        }
        r->runs_cl++;
        if (nd > 1) r->spread++;
        r->h2d += th;
        r->kern += tk;
        r->d2h += td;
        r->bytes_h2d += bh;
        r->bytes_d2h += bd;
        r->xruns++;
        r->xndev = ndev;
        /* a kernel this short gains less from more devices than their transfers and threads cost
           (an iterative stencil's thousand sweeps): the next runs stay on device 0 */
        if (tk * 1e3 < split_min_ms()) r->xshort = tk * 1e3;
        /* (h2d, kernel, d2h: each the slowest device's; other: the rest of the wall time) */
        double rest = ompcl_now() - t_entry - busy;
        if (rest > 0) r->other += rest;
        (void)t_k_wall;
    }
    for (int d = 0; d < ndev; d++) {
        xjob *jb = &jobs[d];
        for (int i = 0; i < na; i++) {
            if (jb->argmem && jb->argmem[i] && (a[i].kind == OMPCL_RED || a[i].kind == OMPCL_LASTP)) cl.ReleaseMemObject(jb->argmem[i]);
            if (jb->part) free(jb->part[i]);
        }
        free(jb->argmem);
        free(jb->argoff);
        free(jb->part);
        free(jb->send);
        free(jb->send_blk);
        for (int i = 0; jb->back && i < jb->nback; i++) free(jb->back[i].tmp);
        free(jb->back);
        free(jb->back_blk);
    }
    free(ab);
    free(need);
    free(wrote);
    return ok;
}

/* The profile's line for a region when several devices are in use. */
static void split_profile_line(const char *file, rstat *r) {
    if (g_ndev < 2) return;
    if (r->xruns) {
        char parts[200] = "";
        size_t at = 0;
        for (int d = 0; d < r->xndev && at < sizeof parts - 24; d++)
            at += snprintf(parts + at, sizeof parts - at, "%s%lld", d ? "+" : "", r->xcnt[d]);
        fprintf(stderr, "ompcl-profile: %s:%d on %d devices: runs=%d, last split %s iterations\n", file, r->line, r->xndev, r->xruns,
                parts);
    }
    if (r->xone) fprintf(stderr, "ompcl-profile: %s:%d on 1 device: %s (runs=%d)\n", file, r->line, r->xwhy, r->xone);
}
