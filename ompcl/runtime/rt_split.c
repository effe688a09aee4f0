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
 * One context or several (OMPCL_PEER, default on with cudacl): where the devices share one
 * context, a byte crosses from the host once at most. Bytes a device needs that another device holds
 * current are copied from it (clEnqueueCopyBuffer, peer to peer on cudacl): 2mm's second loop takes
 * the rows of tmp the first loop left on the other devices. Bytes several devices need that none
 * holds (gemm's B, read whole by every device) are cut into one piece per device: each uploads its
 * piece, then copies the others' (plan_block). With a context per device each uploads all it needs.
 *
 * Devices work concurrently: one host thread per device uploads its slices; once every upload is
 * done, copies its pieces from the other devices; once those are done, launches and waits. After
 * every kernel has finished, one thread per device copies its written range back. A region that
 * cannot be split runs on device 0 as before; OMPCL_PROFILE says why.
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

/* OMPCL_PEER: whether the devices share one context and a split region's data moves between them
   (clEnqueueCopyBuffer on the receiving device's queue; see plan_block). `1` on, `0` off; by default
   on with cudacl, whose copies between the GPUs of one context go peer to peer (383.6 GB/s
   between two H200s, conformance/results/2026-11-28-multigpu-math.md), and off elsewhere (NVIDIA's
   OpenCL copied between two GPUs of one context at 1.3 GB/s there, slower than from the host). */
static int peer_wanted(void) {
    const char *e = getenv("OMPCL_PEER");
    if (e && *e) return strcmp(e, "0") != 0;
    return strstr(g_platname, "cudacl") != NULL;
}

/* The runtime's context: over every device OMPCL_DEVICES chose where they can share one (distinct
   devices, OMPCL_PEER), else over device 0 alone. */
static cl_context devices_context(const intptr_t *props, cl_int *err) {
    int distinct = g_ndev > 1;
    for (int d = 0; d < g_ndev; d++)
        for (int e = d + 1; e < g_ndev; e++) distinct &= g_xdev[d] != g_xdev[e];
    if (distinct && peer_wanted()) {
        cl_context c = cl.CreateContext(props, (cl_uint)g_ndev, g_xdev, NULL, NULL, err);
        if (c && !*err) {
            g_peer = 1;
            return c;
        }
        warnf("OMPCL_PEER: one context over %d devices could not be made (%d); one context per device", g_ndev, *err);
    }
    return cl.CreateContext(props, 1, &g_dev, NULL, NULL, err);
}

/* A context (g_ctx itself where they share it) and a queue for every device but 0 (whose are g_ctx,
   g_q); a device whose set-up fails ends the list there. */
static void devices_open(const intptr_t *props) {
    g_xctx[0] = g_ctx;
    g_xq[0] = g_q;
    for (int d = 1; d < g_ndev; d++) {
        cl_int err = 0;
        g_xctx[d] = g_peer ? g_ctx : cl.CreateContext(props, 1, &g_xdev[d], NULL, NULL, &err);
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

/* The file's program for device d. On platforms other than cudacl each device's build gets its
   own options, in one shared context (OMPCL_PEER=1 with PoCL's CPU devices) and in a context per
   device alike (OMPCL_DEVICES=split:K, one CPU device K times: s8_whole aborted about once in 15
   runs there): PoCL before 2024 (Debian 12's 3.1) keys the loaded kernel binaries of its CPU
   devices by the program's hash and released them wrongly when one kernel ran on several devices
   or contexts at once with different sizes (an abort in pocl_release_dlhandle_cache, fixed by
   PoCL's commit c9ac4c0c3); distinct options give each device's program its own hash. cudacl's
   builds of one source for several GPUs share its compile cache, so they keep the same options. */
static cl_program xbuild(mstate *s, int d, const char *opts) {
    cl_int e = 0;
    const char *src = s->m->source;
    cl_program p = cl.CreateProgramWithSource(g_xctx[d], 1, &src, NULL, &e);
    if (!p || e) return NULL;
    char *own = NULL;
    if (!strstr(g_platname, "cudacl") && (own = malloc(strlen(opts) + 40)))
        sprintf(own, "%s -DOMPCL_DEVICE_INDEX=%d", opts, d);
    cl_int b = cl.BuildProgram(p, 1, &g_xdev[d], own ? own : opts, NULL, NULL);
    free(own);
    return b == CL_SUCCESS ? p : NULL;
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

/* Where b's whole pages end, as an offset in b: a large ompcl_malloc block owns its last page
   whole, and only its size is on the devices. */
static size_t pages_end(const blk *b) {
    size_t phi = b->phi - b->base;
    return phi < b->size ? phi : b->size;
}

/* Where device d's copy of b is known current (whole pages of a tracked block only: read-only, or
   inaccessible while device 0 holds the newest copy). */
static xrange valid_on(const blk *b, int d) {
    xrange v = {0, 0};
    if (!b->big || b->prot == PAGES_RW || g_notrack || b->is_global < 0) return v;
    size_t plo = b->plo - b->base, phi = b->phi - b->base;
    if (d == 0 && b->mem && !b->dirty) { v.lo = plo; v.hi = phi; return v; }
    if (!b->xc || b->xc->hi[d] <= b->xc->lo[d]) return v;
    v.lo = b->xc->lo[d] > plo ? b->xc->lo[d] : plo;
    v.hi = b->xc->hi[d] < phi ? b->xc->hi[d] : phi;
    if (v.lo >= v.hi) v.lo = v.hi = 0;
    return v;
}

/* One copy of a split launch: [off, off+len) of block b between the host and a device's buffer
   mem, or from another device's buffer src into mem (the same range). */
typedef struct xsend {
    blk *b;
    cl_mem mem, src;
    cl_mem orig; /* merges on device 0 (device_merge): the block as it was before the kernels (NULL:
                    all zero, zero_block) */
    size_t sbase; /* merges: mem (a scratch buffer) holds the block's bytes from this offset */
    size_t off, len;
    char *tmp; /* copies back: NULL = into the host's block, else into this buffer (merged later) */
} xsend;

/* A growing list of copies. */
typedef struct xlist {
    xsend *v;
    int n, cap;
} xlist;

/* Appends a copy, joined to the last one where it continues it (same buffers, adjacent bytes);
   0 when out of memory. */
static int xl_push(xlist *l, blk *b, cl_mem mem, cl_mem src, size_t off, size_t len) {
    if (len == 0) return 1;
    xsend *t = l->n ? &l->v[l->n - 1] : NULL;
    if (t && t->b == b && t->mem == mem && t->src == src && !t->tmp && t->off + t->len == off) {
        t->len += len;
        return 1;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        xsend *v = realloc(l->v, cap * sizeof *v);
        if (!v) return 0;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (xsend){b, mem, src, NULL, 0, off, len, NULL};
    return 1;
}

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
    xlist zero;      /* zero fills of its buffers (a merged block the host never wrote), first */
    xlist send;      /* uploads from the host, then */
    xlist peer;      /* then copies from other devices' buffers (OMPCL_PEER), once every upload is done */
    xlist back;      /* copies back after every kernel finished */
    xlist snap;      /* device 0, before its kernel: copies of blocks merged on it (device_merge) */
    xlist gather;    /* device 0 (results that stay, lazy_block): the other devices' written ranges */
    xlist merge;     /* device 0, after those: each other device's written range of a merged block
                        into a scratch buffer (mem), then merged into the block (device_merge) */
    char **part;      /* per RED argument: this device's partials (host) */
    int last;         /* this device has the last chunk: it gives lastprivate values */
    double t_h2d, t_p2p, t_k, t_d2h;
    size_t b_h2d, b_p2p, b_d2h;
    cl_int err;
    const char *fail;
} xjob;

/* Phase 1 of a device: its zero fills and its uploads from the host. */
static void *xjob_send(void *p) {
    xjob *j = p;
    double t0 = ompcl_now();
    static const cl_uint zero = 0;
    for (int i = 0; i < j->zero.n && !j->err; i++) {
        xsend *s = &j->zero.v[i];
        /* (a whole number of 4-byte patterns: the range's ends are multiples of 4 or it runs
           to the block's end, whose last bytes are filled one at a time) */
        size_t n4 = s->len & ~(size_t)3;
        if (n4) j->err = cl.EnqueueFillBuffer(j->q, s->mem, &zero, 4, s->off, n4, 0, NULL, NULL);
        if (!j->err && s->len > n4) j->err = cl.EnqueueFillBuffer(j->q, s->mem, &zero, 1, s->off + n4, s->len - n4, 0, NULL, NULL);
        if (j->err) j->fail = "clEnqueueFillBuffer";
    }
    for (int i = 0; i < j->send.n && !j->err; i++) {
        xsend *s = &j->send.v[i];
        j->err = cl.EnqueueWriteBuffer(j->q, s->mem, 0, s->off, s->len, s->b->base + s->off, 0, NULL, NULL);
        j->b_h2d += s->len;
        if (j->err) j->fail = "clEnqueueWriteBuffer";
    }
    if (!j->err && (j->send.n || j->zero.n) && (j->err = cl.Finish(j->q))) j->fail = "clFinish";
    j->t_h2d = ompcl_now() - t0;
    return NULL;
}

/* Copies [off, off+len) of entry s's src into its mem (from sbase) on j's queue (no wait). */
static void xs_copy(xjob *j, const xsend *s) {
    cl_command_queue q = j->q;
    j->err = cl.EnqueueCopyBuffer(q, s->src, s->mem, s->off, s->off - s->sbase, s->len, 0, NULL, NULL);
    j->b_p2p += s->len;
    if (j->err) j->fail = "clEnqueueCopyBuffer";
}

/* xs_copy of every entry of l, until one fails. */
static void xl_copy(xjob *j, const xlist *l) {
    for (int i = 0; i < l->n && !j->err; i++) xs_copy(j, &l->v[i]);
}

/* Phase 2 (OMPCL_PEER): its copies from the other devices' buffers, which phase 1 filled. */
static void *xjob_peer(void *p) {
    xjob *j = p;
    double t0 = ompcl_now();
    xl_copy(j, &j->peer);
    if (!j->err && j->peer.n && (j->err = cl.Finish(j->q))) j->fail = "clFinish";
    j->t_p2p = ompcl_now() - t0;
    return NULL;
}

/* ---- merging on device 0 (one shared context): a region whose devices' written ranges of a block
   overlap, one iteration writing each element (covariance's symmetric fill), splits at little
   cost: device 0 keeps a copy of the block as it was (orig), and after the kernels takes each other
   device's written range into a scratch buffer and keeps the bytes that differ from orig there
   (the ones that device wrote; a write of the value already there changes nothing either way).
   A block the host never wrote needs no copy: every device zeroes it first (zero_block), and the
   bytes that differ from zero are the written ones. */
/* By 16-byte units: a unit inside [off, off+n) that the device left as it was (most of them, in a
   symmetric fill's range) is two loads and nothing else; the units at the range's ends go byte by
   byte, since the scratch buffer's bytes beyond the range are stale. The scratch buffer s holds
   the block's bytes from sbase (a multiple of 16) on; zero: the block was all zero (o unused). */
static const char *MERGE_SOURCE =
    "__kernel void ompcl_merge(__global uchar *out, __global const uchar *s, __global const uchar *o, ulong off, ulong n,\n"
    "                          ulong sbase, uint zero) {\n"
    "    ulong lo = off, hi = off + n, su = sbase / 16;\n"
    "    for (ulong u = lo / 16 + get_global_id(0); u < (hi + 15) / 16; u += get_global_size(0)) {\n"
    "        ulong b = u * 16;\n"
    "        if (b >= lo && b + 16 <= hi) {\n"
    "            uchar16 v = vload16(u - su, s), w = zero ? (uchar16)(0) : vload16(u, o);\n"
    "            char16 changed = v != w;\n"
    "            if (any(changed)) vstore16(select(vload16(u, out), v, changed), u, out);\n"
    "        } else {\n"
    "            for (ulong i = max(b, lo); i < min(b + 16, hi); i++) {\n"
    "                uchar v = s[i - sbase];\n"
    "                if (v != (zero ? 0 : o[i])) out[i] = v;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n";
static cl_kernel g_merge_kernel;
static int g_merge_state; /* 0 not built yet, 1 built, -1 failed */

/* The merge kernel on device 0, built the first time; NULL if it does not build. */
static cl_kernel merge_kernel(void) {
    if (g_merge_state == 0) {
        g_merge_state = -1;
        cl_int e = 0;
        cl_program p = cl.CreateProgramWithSource(g_ctx, 1, &MERGE_SOURCE, NULL, &e);
        if (p && !e && cl.BuildProgram(p, 1, &g_dev, "", NULL, NULL) == CL_SUCCESS) {
            g_merge_kernel = cl.CreateKernel(p, "ompcl_merge", &e);
            if (g_merge_kernel && !e) g_merge_state = 1;
        }
    }
    return g_merge_state > 0 ? g_merge_kernel : NULL;
}

/* Whether block b's overlapping results can be merged on device 0: one shared context, lazy
   copy-back (the merged block stays there, lazy_block), a tracked block, the kernel built. */
static int device_merge(const blk *b) {
    return g_peer && !g_eager && b->big && b->is_global >= 0 && !g_notrack && merge_kernel();
}

/* Whether every device zeroes merged block b before the kernels (its bytes then need no copy
   between devices, and the merge compares with zero): a block the host never wrote, whose bytes
   are indeterminate (and zero where the host reads them), on a library with clEnqueueFillBuffer. */
static int zero_block(const blk *b) {
    return b->unwritten && cl.EnqueueFillBuffer != NULL;
}

/* Device 0's scratch buffer for merges, of at least `size` bytes: kept from one split launch to
   the next (a 600 MB buffer costs milliseconds to allocate and to free), replaced by a larger one
   when needed. NULL if it cannot be made. */
static cl_mem merge_scratch(size_t size) {
    static cl_mem mem;
    static size_t have;
    if (mem && have >= size) return mem;
    if (mem) cl.ReleaseMemObject(mem);
    cl_int err = 0;
    mem = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    if (!mem || err) mem = NULL;
    have = mem ? size : 0;
    return mem;
}

/* Device 0's merges: each entry's range of another device's copy (src) into the scratch buffer
   (mem), then the merge into the block (the in-order queue runs each after the one before). */
static void xl_merge(xjob *j, const xlist *l) {
    for (int i = 0; i < l->n && !j->err; i++) {
        xsend *s = &l->v[i];
        xs_copy(j, s);
        if (j->err) break;
        cl_ulong off = s->off, n = s->len, sbase = s->sbase;
        cl_uint zero = s->orig == NULL;
        cl_mem orig = zero ? s->mem : s->orig;
        cl_mem out = s->b->mem;
        size_t lsz = 256, gsz = ((n + 15) / 16 + 2 + lsz - 1) / lsz * lsz;
        if (gsz > ((size_t)1 << 22)) gsz = (size_t)1 << 22;
        cl_kernel k = g_merge_kernel;
        j->err = cl.SetKernelArg(k, 0, sizeof out, &out);
        if (!j->err) j->err = cl.SetKernelArg(k, 1, sizeof(cl_mem), &s->mem);
        if (!j->err) j->err = cl.SetKernelArg(k, 2, sizeof(cl_mem), &orig);
        if (!j->err) j->err = cl.SetKernelArg(k, 3, sizeof off, &off);
        if (!j->err) j->err = cl.SetKernelArg(k, 4, sizeof n, &n);
        if (!j->err) j->err = cl.SetKernelArg(k, 5, sizeof sbase, &sbase);
        if (!j->err) j->err = cl.SetKernelArg(k, 6, sizeof zero, &zero);
        if (!j->err) j->err = cl.EnqueueNDRangeKernel(j->q, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL);
        if (j->err) j->fail = "the merge kernel";
    }
}

/* Phase 3: arguments, the kernel, and its partial results. */
static void *xjob_run(void *p) {
    xjob *j = p;
    double t0;
    cl_uint ai = 0;
    xl_copy(j, &j->snap);
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

/* Phase 4 of a device: its written ranges back into the host's memory; on device 0 first the
   other devices' written ranges of the blocks whose results stay on it (split_lazy). */
static void *xjob_back(void *p) {
    xjob *j = p;
    double t0 = ompcl_now();
    xl_copy(j, &j->gather);
    xl_merge(j, &j->merge);
    if (!j->err && (j->gather.n || j->merge.n) && (j->err = cl.Finish(j->q))) j->fail = "clFinish";
    j->t_p2p += ompcl_now() - t0;
    t0 = ompcl_now();
    for (int i = 0; i < j->back.n && !j->err; i++) {
        xsend *s = &j->back.v[i];
        char *dst = s->tmp ? s->tmp : s->b->base + s->off;
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
        for (int i = 0; i < jobs[d].back.n; i++)
            if (jobs[d].back.v[i].b == b) xr_add(&all, (xrange){jobs[d].back.v[i].off, jobs[d].back.v[i].off + jobs[d].back.v[i].len});
    if (all.lo >= all.hi) return;
    char *orig = malloc(all.hi - all.lo);
    if (!orig) {
        fprintf(stderr, "ompcl: error: out of memory merging a split region's results; stopping\n");
        exit(70);
    }
    memcpy(orig, b->base + all.lo, all.hi - all.lo);
    for (int d = 0; d < ndev; d++)
        for (int i = 0; i < jobs[d].back.n; i++) {
            xsend *s = &jobs[d].back.v[i];
            if (s->b != b || !s->tmp) continue;
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

/* Whether block b's results of a split region stay on the devices (one shared context, lazy
   copy-back): device 0 gathers the other devices' written ranges (copies between devices) and the
   host gets the whole pages from it on its first access, as after a single device's kernel. Needs
   a tracked block that some device wrote, no byte-wise merge, and device 0 current over all the
   block's whole pages once it has the other devices' written ranges (what it needed or held
   before, and what they wrote). */
static int lazy_block(const blk *b, int j, int ndev, xrange (*need)[256], xrange (*wrote)[256], int merged) {
    if (!g_peer || g_eager || merged || !b->big || b->is_global < 0 || g_notrack) return 0;
    xrange r[MAXDEV + 2];
    int n = 0, w = 0;
    r[n++] = need[0][j];
    r[n++] = valid_on(b, 0);
    for (int d = 0; d < ndev; d++) {
        w |= wrote[d][j].lo < wrote[d][j].hi;
        if (d > 0) r[n++] = wrote[d][j];
    }
    /* the whole pages covered: extend the covered prefix until no range continues it */
    size_t at = b->plo - b->base, end = pages_end(b);
    for (int grew = 1; w && at < end && grew;) {
        grew = 0;
        for (int i = 0; i < n; i++)
            if (r[i].lo < r[i].hi && r[i].lo <= at && r[i].hi > at) {
                at = r[i].hi;
                grew = 1;
            }
    }
    return w && at >= end;
}

/* The bytes of need that held lacks: up to two ranges (empty ones have lo >= hi). */
static void missing(xrange need, xrange held, xrange out[2]) {
    out[0] = need;
    out[1] = (xrange){0, 0};
    if (need.lo >= need.hi || held.lo >= held.hi || held.lo >= need.hi || need.lo >= held.hi) return;
    out[0].hi = held.lo > need.lo ? held.lo : need.lo;
    out[1].lo = held.hi < need.hi ? held.hi : need.hi;
    out[1].hi = need.hi;
}

static int covers(xrange r, size_t x, size_t y) {
    return r.lo < r.hi && r.lo <= x && y <= r.hi;
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* OMPCL_PEER_MIN (bytes, default 256 KiB): bytes that several devices lack below which each
   uploads them itself rather than a piece (a copy between devices costs a command more). */
static size_t peer_min(void) {
    static long long v = -1;
    if (v < 0) {
        const char *e = getenv("OMPCL_PEER_MIN");
        v = e && *e ? atoll(e) : 256 << 10;
        if (v < 0) v = 0;
    }
    return (size_t)v;
}

/* Where each device's missing bytes of block b (miss[d]) come from. One context per device: the
   host, each device all it lacks. With OMPCL_PEER every byte crosses from the host once at most,
   since the host's link is what limits a split region (about 20 GB/s in all from the host to four
   H200s, against 380 GB/s between two of them): bytes a device held current before the region
   (held[v]) are copied from it; bytes nobody holds that several devices lack are cut into one
   piece per such device, each uploads its piece and copies the others' from them (peer_min bytes
   and more; below that each uploads them). 0: out of memory. */
static int plan_block(xjob *jobs, int ndev, blk *b, const cl_mem *mem, xrange (*miss)[2], const xrange *held) {
    if (!g_peer) {
        for (int d = 0; d < ndev; d++)
            for (int q = 0; q < 2; q++)
                if (miss[d][q].lo < miss[d][q].hi && !xl_push(&jobs[d].send, b, mem[d], NULL, miss[d][q].lo, miss[d][q].hi - miss[d][q].lo))
                    return 0;
        return 1;
    }
    /* the ranges' ends cut the block into pieces that each device lacks wholly or not at all */
    size_t cut[6 * MAXDEV];
    int nc = 0;
    for (int d = 0; d < ndev; d++) {
        for (int q = 0; q < 2; q++)
            if (miss[d][q].lo < miss[d][q].hi) {
                cut[nc++] = miss[d][q].lo;
                cut[nc++] = miss[d][q].hi;
            }
        if (held[d].lo < held[d].hi) {
            cut[nc++] = held[d].lo;
            cut[nc++] = held[d].hi;
        }
    }
    qsort(cut, nc, sizeof *cut, cmp_size);
    for (int c = 0; c + 1 < nc; c++) {
        size_t x = cut[c], y = cut[c + 1];
        if (x >= y) continue;
        int lack[MAXDEV], nl = 0, from[MAXDEV], nf = 0;
        for (int d = 0; d < ndev; d++) {
            if (covers(miss[d][0], x, y) || covers(miss[d][1], x, y)) lack[nl++] = d;
            else if (covers(held[d], x, y)) from[nf++] = d;
        }
        for (int i = 0; i < nl; i++) {
            int d = lack[i];
            if (nf) { /* from a device that holds it, the receivers spread over the holders */
                if (!xl_push(&jobs[d].peer, b, mem[d], mem[from[i % nf]], x, y - x)) return 0;
            } else if (nl == 1 || y - x < peer_min()) {
                if (!xl_push(&jobs[d].send, b, mem[d], NULL, x, y - x)) return 0;
            } else {
                /* piece i (4 KiB aligned) from the host, the others from their devices */
                size_t piece = ((y - x) / nl + 4095) & ~(size_t)4095;
                for (int k = 0; k < nl; k++) {
                    size_t lo = x + (size_t)k * piece, hi = lo + piece < y ? lo + piece : y;
                    if (lo >= hi) continue;
                    int ok = k == i ? xl_push(&jobs[d].send, b, mem[d], NULL, lo, hi - lo)
                                    : xl_push(&jobs[d].peer, b, mem[d], mem[lack[k]], lo, hi - lo);
                    if (!ok) return 0;
                }
            }
        }
    }
    return 1;
}

/* Block b's results of a split region stay on the devices (lazy_block; device 0 has gathered the
   other devices' written ranges, or merged them): device 0 wholly current, each other device in
   what it wrote (nothing where merged), the
   host's whole pages inaccessible until the host touches them (then copied from device 0,
   host_access). g_lock held. */
static void results_stay(blk *b, xrange (*wrote)[256], int j, int ndev, int merged) {
    b->unwritten = 0;
    install_handler();
    pthread_mutex_lock(&g_fault);
    if (pages_to_none(b)) {
        /* the pages could not be made inaccessible: copy them now */
        unprotect(b);
        size_t len = pages_end(b) - (b->plo - b->base);
        cl_int e = cl.EnqueueReadBuffer(g_q, b->mem, 1, b->plo - b->base, len, b->plo, 0, NULL, NULL);
        if (e) {
            fprintf(stderr, "ompcl: error: copying a split region's results back failed (clEnqueueReadBuffer: %d); stopping\n", (int)e);
            exit(70);
        }
    }
    fault_unlock();
    if (b->prot == PAGES_RW) protect(b);
    /* (merged: each other device lacks the elements the others wrote) */
    for (int d = 0; d < MAXDEV; d++) {
        b->xc->lo[d] = d > 0 && d < ndev && !merged ? wrote[d][j].lo : 0;
        b->xc->hi[d] = d > 0 && d < ndev && !merged ? wrote[d][j].hi : 0;
    }
    b->dirty = 0;
}

/* OMPCL_SPLIT_TRACE=1: one line per split launch on stderr with the time of each of its steps
   (where a split region's time goes beyond its kernels: allocation, copies, merges, threads). */
static int split_trace(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("OMPCL_SPLIT_TRACE");
        v = e && *e && strcmp(e, "0") != 0;
    }
    return v;
}

typedef struct xtrace {
    double at[16];
    const char *what[16];
    int n;
} xtrace;

static void xt_mark(xtrace *t, const char *what) {
    if (t->n < 16) {
        t->at[t->n] = ompcl_now();
        t->what[t->n++] = what;
    }
}

static void xt_print(const xtrace *t, const char *file, int line, int ndev, size_t h2d, size_t p2p, size_t zero) {
    if (!split_trace() || t->n < 2) return;
    char buf[600];
    size_t at = 0;
    for (int i = 1; i < t->n && at < sizeof buf - 40; i++)
        at += snprintf(buf + at, sizeof buf - at, " %s=%.3f", t->what[i], (t->at[i] - t->at[i - 1]) * 1e3);
    fprintf(stderr, "ompcl-split: %s:%d on %d devices (ms):%s total=%.3f; bytes: h2d=%zu p2p=%zu zeroed=%zu\n", file, line, ndev, buf,
            (t->at[t->n - 1] - t->at[0]) * 1e3, h2d, p2p, zero);
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
        if (a[i].kind == OMPCL_ROWS) return no_split(r, "'%s' is a table of row pointers (rt_rows.c: one device)", a[i].name);
    }
    xtrace tr = {{0}, {0}, 0};
    xt_mark(&tr, "start");
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

    xt_mark(&tr, "build");
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
                    if (one_writer && (split_merge() || device_merge(ub[j]))) {
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
    /* blocks merged on device 0 (device_merge; else on the host, merge_back): device 0 needs the
       whole block current, to keep a copy of it as it was and to hold the merged result */
    int gmerge[256] = {0};
    for (int j = 0; j < nub; j++)
        if (merge[j] && (gmerge[j] = device_merge(ub[j]))) need[0][j] = (xrange){0, ub[j]->size};
    /* results that stay on the devices (see lazy_block; merged ones on device 0) */
    int lazy[256] = {0};
    for (int j = 0; j < nub; j++) lazy[j] = gmerge[j] || lazy_block(ub[j], j, ndev, need, wrote, merge[j]);
    /* the host's copy current (a single-device kernel or a split region may have left newer data on
       device 0), except, with one shared context, a block device 0 holds whole and current (not
       one merged on the host): the devices take it from there */
    int left_written = 0; /* such a block the region writes */
    for (int j = 0; j < nub; j++) {
        blk *b = ub[j];
        int w = 0;
        for (int d = 0; d < ndev; d++) w |= wrote[d][j].lo < wrote[d][j].hi;
        pthread_mutex_lock(&g_fault);
        settle_chunks(b); /* (chunks the host touched since: their changes to device 0) */
        fault_unlock();
        if (g_peer && !g_eager && b->prot == PAGES_NONE && !b->dirty && (!merge[j] || gmerge[j])) {
            left_written |= w;
            continue;
        }
        pthread_mutex_lock(&g_fault);
        host_access(b, 0);
        fault_unlock();
    }
    for (int i = 0; i < na; i++)
        if (a[i].kind == OMPCL_VAL) host_range_locked(a[i].addr, a[i].size, 0);

    xt_mark(&tr, "host");
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
    xt_mark(&tr, "alloc");
    /* merged blocks: device 0's copy of each as it was (not of one every device zeroes first,
       zero_block: it is all zero), and the scratch buffer the other devices' written ranges come
       into, one after another (merge_scratch) */
    int zeroed[256] = {0};
    cl_mem morig[256] = {0}, mscratch = NULL;
    size_t scratch_need = 0;
    for (int j = 0; j < nub && ok; j++) {
        if (!gmerge[j]) continue;
        zeroed[j] = zero_block(ub[j]);
        for (int d = 1; d < ndev; d++)
            if (wrote[d][j].lo < wrote[d][j].hi && wrote[d][j].hi - (wrote[d][j].lo & ~(size_t)15) > scratch_need)
                scratch_need = wrote[d][j].hi - (wrote[d][j].lo & ~(size_t)15);
        if (!zeroed[j]) {
            morig[j] = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, ub[j]->size ? ub[j]->size : 1, NULL, &err);
            if (!morig[j] || err) { morig[j] = NULL; ok = 0; failname = "clCreateBuffer"; }
        }
    }
    if (ok && scratch_need && !(mscratch = merge_scratch(scratch_need))) { ok = 0; failname = "clCreateBuffer"; }
    xt_mark(&tr, "mergebufs");
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
        jb->groups = ndrange(s->kern[rid], nd, cnt[d], e0, e1, L, hints, jb->gsz, jb->lsz);
        jb->a = a;
        jb->na = na;
        jb->argmem = calloc(na + 1, sizeof(cl_mem));
        jb->argoff = calloc(na + 1, sizeof(cl_long));
        jb->part = calloc(na + 1, sizeof(char *));
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
        /* the written ranges, to copy back (blocks whose results stay on the devices: only the
           edges beyond whole pages; the whole pages to device 0) */
        for (int j = 0; j < nub && ok; j++) {
            blk *b = ub[j];
            xrange wr = wrote[d][j];
            size_t len = wr.hi - wr.lo;
            cl_mem mem = d == 0 ? b->mem : b->xc->mem[d];
            if (wr.lo >= wr.hi) continue;
            if (gmerge[j]) {
                /* device 0: a copy of the written bytes as they are before its kernel, and, after
                   the merges, the written bytes beyond whole pages back to the host; the others:
                   their written ranges merged on device 0 */
                int pushed = 1;
                if (d == 0) {
                    xrange h = {0, 0};
                    for (int e = 0; e < ndev; e++) xr_add(&h, wrote[e][j]);
                    size_t plo = b->plo - b->base, end = pages_end(b);
                    if (!zeroed[j]) pushed &= xl_push(&jb->snap, b, morig[j], b->mem, h.lo, h.hi - h.lo);
                    if (h.lo < plo) pushed &= xl_push(&jb->back, b, b->mem, NULL, h.lo, (h.hi < plo ? h.hi : plo) - h.lo);
                    if (h.hi > end) pushed &= xl_push(&jb->back, b, b->mem, NULL, h.lo > end ? h.lo : end, h.hi - (h.lo > end ? h.lo : end));
                } else if (xl_push(&jobs[0].merge, b, mscratch, mem, wr.lo, len)) {
                    jobs[0].merge.v[jobs[0].merge.n - 1].orig = morig[j];
                    jobs[0].merge.v[jobs[0].merge.n - 1].sbase = wr.lo & ~(size_t)15;
                } else pushed = 0;
                if (!pushed) { ok = 0; failname = "malloc"; }
                continue;
            }
            if (lazy[j]) {
                size_t plo = b->plo - b->base, phi = b->phi - b->base;
                size_t in_lo = wr.lo > plo ? wr.lo : plo, in_hi = wr.hi < phi ? wr.hi : phi;
                int pushed = 1;
                if (wr.lo < plo) pushed &= xl_push(&jb->back, b, mem, NULL, wr.lo, (wr.hi < plo ? wr.hi : plo) - wr.lo);
                if (wr.hi > phi) pushed &= xl_push(&jb->back, b, mem, NULL, wr.lo > phi ? wr.lo : phi, wr.hi - (wr.lo > phi ? wr.lo : phi));
                if (d > 0 && in_lo < in_hi) pushed &= xl_push(&jobs[0].gather, b, b->mem, mem, in_lo, in_hi - in_lo);
                if (!pushed) { ok = 0; failname = "malloc"; }
                continue;
            }
            if (!xl_push(&jb->back, b, mem, NULL, wr.lo, len)) { ok = 0; failname = "malloc"; }
            else if (merge[j] && !(jb->back.v[jb->back.n - 1].tmp = malloc(len))) { ok = 0; failname = "malloc"; }
        }
    }
    /* the data: what each device needs and does not hold (a written block: all of its written
       range too, so the bytes the kernel does not write there are current after it) */
    for (int j = 0; j < nub && ok; j++) {
        blk *b = ub[j];
        /* nothing the host wrote: no data needed (but a merged block's copies must equal the
           host's, which merge_back compares them with) */
        if (b->unwritten && !merge[j]) continue;
        cl_mem mem[MAXDEV];
        xrange miss[MAXDEV][2], held[MAXDEV];
        if (zeroed[j]) {
            /* merged on device 0, and never written by the host (its bytes indeterminate, zero
               where the host reads them): every device zeroes what it needs (device 0 the whole
               block, which it keeps) rather than take device 0's bytes over the links: then every
               copy agrees with device 0's before the kernels, as the merge needs, and the block
               is zero where no kernel writes, as the host saw it */
            for (int d = 0; d < ndev && ok; d++) {
                xrange z = d == 0 ? (xrange){0, b->size} : need[d][j];
                if (z.lo < z.hi && z.lo % 4) z.lo &= ~(size_t)3; /* (4-byte patterns from an aligned start) */
                if (z.lo < z.hi && !xl_push(&jobs[d].zero, b, d == 0 ? b->mem : b->xc->mem[d], NULL, z.lo, z.hi - z.lo)) {
                    ok = 0;
                    failname = "malloc";
                }
            }
            continue;
        }
        for (int d = 0; d < ndev; d++) {
            mem[d] = d == 0 ? b->mem : b->xc->mem[d];
            held[d] = valid_on(b, d);
            /* a block merged on device 0 that the host never wrote: its bytes are indeterminate, so
               device 0's, whatever they are, are the ones the others start from */
            if (gmerge[j] && b->unwritten) held[d] = d == 0 ? (xrange){0, b->size} : (xrange){0, 0};
            missing(need[d][j], held[d], miss[d]);
        }
        if (!plan_block(jobs, ndev, b, mem, miss, held)) { ok = 0; failname = "malloc"; }
    }
    pthread_mutex_unlock(&g_lock);
    xt_mark(&tr, "plan");
    double t_run = ompcl_now();
    /* uploads on every device, then (all of them done) copies between devices, then the kernels */
    void *(*phase[3])(void *) = {xjob_send, xjob_peer, xjob_run};
    int kernels_began = 0;
    for (int ph = 0; ph < 3 && ok; ph++) {
        kernels_began = ph == 2;
        int any = ph != 1;
        for (int d = 0; d < ndev; d++) any |= jobs[d].peer.n > 0;
        if (any) xjobs(jobs, ndev, phase[ph]);
        xt_mark(&tr, ph == 0 ? "h2d" : ph == 1 ? "p2p" : "kernels");
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
            if (!w || lazy[j]) continue;
            if (ub[j]->prot == PAGES_NONE) host_access(ub[j], 0); /* left on device 0 at the start (no kernel wrote outside its range) */
            unprotect(ub[j]);
        }
        fault_unlock();
        xt_mark(&tr, "unprotect");
        xjobs(jobs, ndev, xjob_back);
        xt_mark(&tr, "back");
        for (int j = 0; j < nub; j++)
            if (merge[j] && !gmerge[j]) merge_back(ub[j], jobs, ndev);
        for (int d = 0; d < ndev; d++)
            if (jobs[d].err) {
                /* part of the results reached the host: the CPU version cannot redo the region */
                fprintf(stderr, "ompcl: error: %s:%d: copying a split region's results back failed (%s: %d); stopping\n",
                        base_name(m->file), line, jobs[d].fail, (int)jobs[d].err);
                exit(70);
            }
        /* the new state: the host current (pages read-only again, tracked) except in blocks left on
           device 0, each device current in what it needed (read-only blocks) or only in what it
           wrote (written ones) */
        for (int j = 0; j < nub; j++) {
            blk *b = ub[j];
            int w = 0;
            for (int d = 0; d < ndev; d++) w |= wrote[d][j].lo < wrote[d][j].hi;
            if (lazy[j]) {
                results_stay(b, wrote, j, ndev, gmerge[j]);
                continue;
            }
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
        xt_mark(&tr, "state");
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
        /* nothing reached the host: forget what the devices hold of the written blocks, run the CPU
           version (a block left on device 0 first comes to the host, unchanged unless a kernel
           wrote it: then the data the region started from is gone) */
        if (kernels_began && left_written) {
            fprintf(stderr, "ompcl: error: %s:%d: %s failed (%d) in a region split over %d devices, whose data was on the devices only; stopping\n",
                    base_name(m->file), line, failname ? failname : "a command", (int)err, ndev);
            exit(70);
        }
        pthread_mutex_lock(&g_lock);
        for (int j = 0; j < nub; j++) {
            pthread_mutex_lock(&g_fault);
            if (ub[j]->prot == PAGES_NONE) host_access(ub[j], 0);
            fault_unlock();
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
        double th = 0, tp = 0, tk = 0, td = 0, busy = 0;
        size_t bh = 0, bp = 0, bd = 0;
        for (int d = 0; d < ndev; d++) {
            if (jobs[d].t_h2d > th) th = jobs[d].t_h2d;
            if (jobs[d].t_k > tk) tk = jobs[d].t_k;
            if (jobs[d].t_d2h > td) td = jobs[d].t_d2h;
            if (jobs[d].t_p2p > tp) tp = jobs[d].t_p2p;
            double bz = jobs[d].t_h2d + jobs[d].t_p2p + jobs[d].t_k + jobs[d].t_d2h;
            if (bz > busy) busy = bz;
            bh += jobs[d].b_h2d;
            bp += jobs[d].b_p2p;
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
        r->xp2p += tp;
        r->xbytes_p2p += bp;
        r->xruns++;
        r->xndev = ndev;
        /* a kernel this short gains less from more devices than their transfers and threads cost
           (an iterative stencil's thousand sweeps): the next runs stay on device 0 */
        if (tk * 1e3 < split_min_ms()) r->xshort = tk * 1e3;
        /* (h2d, copies between devices, kernel, d2h: each the slowest device's; other: the rest of
           the wall time) */
        double rest = ompcl_now() - t_entry - busy;
        if (rest > 0) r->other += rest;
        (void)t_k_wall;
    }
    /* (bytes moved, for OMPCL_SPLIT_TRACE) */
    size_t tb[3] = {0, 0, 0};
    for (int d = 0; d < ndev; d++) {
        tb[0] += jobs[d].b_h2d;
        tb[1] += jobs[d].b_p2p;
        for (int i = 0; i < jobs[d].zero.n; i++) tb[2] += jobs[d].zero.v[i].len;
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
        free(jb->zero.v);
        free(jb->send.v);
        free(jb->peer.v);
        free(jb->gather.v);
        free(jb->snap.v);
        free(jb->merge.v);
        for (int i = 0; i < jb->back.n; i++) free(jb->back.v[i].tmp);
        free(jb->back.v);
    }
    for (int j = 0; j < nub; j++) {
        if (morig[j]) cl.ReleaseMemObject(morig[j]);
    }
    free(ab);
    free(need);
    free(wrote);
    xt_mark(&tr, "release");
    xt_print(&tr, base_name(m->file), line, ndev, tb[0], tb[1], tb[2]);
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
        fprintf(stderr, "ompcl-profile: %s:%d on %d devices: runs=%d, last split %s iterations, between devices %.3f ms (%zu B)\n", file,
                r->line, r->xndev, r->xruns, parts, r->xp2p * 1e3, r->xbytes_p2p);
    }
    if (r->xone) fprintf(stderr, "ompcl-profile: %s:%d on 1 device: %s (runs=%d)\n", file, r->line, r->xwhy, r->xone);
}
