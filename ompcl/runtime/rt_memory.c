/* ompcl runtime, part of one C file (see rt_base.c): the host-allocation table (MOMP 4.1.2) and host-write tracking by page protection. */
/* ---------------------------------------------------------------- allocation table */
/* Protection states of a block's whole pages [plo, phi): */
enum { PAGES_RW = 0,   /* not tracked: the host may write them freely */
       PAGES_RO = 1,   /* host and device copies equal: the first host write faults (-> host-dirty) */
       PAGES_NONE = 2  /* the device copy is newer (a kernel wrote it): the first host access faults and
                          copies the pages back (lazy copy-back, MOMP's page tracking in the other direction) */
};
/* A block's copies on the devices of regions spread over several devices (rt_split.c; device 0's
   buffer is blk.mem). lo/hi: the byte range (offsets in the block) where device d's copy is known
   to equal the current data; empty (lo == hi) when nothing is known. Any change of the data made
   elsewhere (a host write, a single-device kernel's write) empties every range (xc_stale). */
typedef struct xcopy {
    cl_mem mem[MAXDEV]; /* [0] unused: device 0's buffer is blk.mem */
    size_t lo[MAXDEV], hi[MAXDEV];
} xcopy;

typedef struct blk {
    char *base;
    size_t size;
    char *plo, *phi;        /* whole pages that can be protected */
    cl_mem mem;
    volatile int dirty;     /* host wrote the protected part since the last sync */
    volatile int prot;      /* PAGES_* */
    int big, is_global, bigslot;
    int unwritten;          /* a large ompcl_malloc block the host has not written since: its bytes
                               are indeterminate, so a kernel's device copy needs none of them */
    int held;               /* mapped by OpenMP 4.5 data constructs (rt_target.c): the device copy
                               is the current one; launches neither send nor copy it back */
    struct blk *left, *right; /* the table: a treap ordered by base (O(log n) per operation) */
    unsigned prio;
    struct blk *next;       /* ephemeral blocks of one launch (rt_launch.c) */
    xcopy *xc;              /* copies on several devices (rt_split.c), NULL until a split region uses it */
    unsigned char *got;     /* PAGES_NONE: per FETCH_CHUNK of the whole pages, CHUNK_* (fetch_chunk);
                               NULL: every chunk CHUNK_DEVICE */
    size_t ngot;            /* chunks not CHUNK_DEVICE */
} blk;

/* b's data changed outside a split region: no device copy is known current any more */
static void xc_stale(blk *b) {
    if (b->xc)
        for (int d = 0; d < MAXDEV; d++) b->xc->lo[d] = b->xc->hi[d] = 0;
}

#define MAXBIG 65536
static blk *g_root;
static size_t g_nblk;
static blk *volatile g_big[MAXBIG]; /* big blocks, read by the fault handler without locks */
static volatile int g_nbig;
static int g_freeslot[MAXBIG]; /* slots of g_big freed by ompcl_free, for reuse */
static int g_nfreeslot;
static int g_handler;
static struct sigaction g_oldsa;
/* Serialises every change of a block's page protection, in the fault handler too (lock order:
   g_launch, then g_lock, then g_fault). */
static pthread_mutex_t g_fault = PTHREAD_MUTEX_INITIALIZER;
/* Counts the releases of g_fault by anything that may have changed a page protection (every
   holder but the fault handler finding nothing to do): the handler tells a fault that repeats with
   nothing changed in between (not ours: stop looping) from one that merely lost a race again. */
static volatile unsigned g_prot_gen;

/* Releases g_fault after protections may have changed. */
static void fault_unlock(void) {
    g_prot_gen++;
    pthread_mutex_unlock(&g_fault);
}
/* lazy copy-backs: count, time, bytes (OMPCL_PROFILE) */
static double g_lazy_t;
static size_t g_lazy_n, g_lazy_chunks, g_lazy_bytes; /* (blocks whole, chunks alone) */

static void install_handler(void);

static void forget_chunks(blk *b) {
    free(b->got);
    b->got = NULL;
    b->ngot = 0;
}

static void unprotect(blk *b) {
    if (b->prot) {
        mprotect(b->plo, b->phi - b->plo, PROT_READ | PROT_WRITE);
        b->prot = PAGES_RW;
        forget_chunks(b);
    }
}

/* Device 0's copy of b is newer than the host's: its whole pages become inaccessible, those the
   host had fetched back (fetch_chunk) too (g_fault held). 0, or -1 if mprotect failed. */
static int pages_to_none(blk *b) {
    if (b->prot == PAGES_NONE && !b->got) return 0;
    if (mprotect(b->plo, b->phi - b->plo, PROT_NONE)) return -1;
    b->prot = PAGES_NONE;
    forget_chunks(b);
    return 0;
}

/* The device holds the only current copy of [lo, hi) (whole pages of b): copy it back (g_fault
   held). The pages are filled in a fresh mapping that then replaces them in one mremap, so another
   thread never sees half-copied pages; they come back read-only (host and device equal). A failed
   copy loses the program's data: stop rather than compute with stale values. */
static size_t fetch_range(blk *b, char *lo, char *hi) {
    size_t len = hi - lo;
    void *t = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    /* a large ompcl_malloc block owns its last page whole: only its size is on the device */
    size_t want = b->base + b->size < hi ? (size_t)(b->base + b->size - lo) : len;
    cl_int e = t == MAP_FAILED ? -1 : cl.EnqueueReadBuffer(g_q, b->mem, 1, lo - b->base, want, t, 0, NULL, NULL);
    const char *step = t == MAP_FAILED ? "mmap" : e ? "clEnqueueReadBuffer" : NULL;
    if (!step && mprotect(t, len, PROT_READ)) step = "mprotect";
    if (!step && mremap(t, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, lo) == MAP_FAILED) step = "mremap";
    install_handler(); /* the driver's call may have taken it away (see install_handler) */
    if (step) {
        char msg[160];
        int k = snprintf(msg, sizeof msg, "ompcl: error: copying a kernel's results back to the host failed (%s: %d/%d); stopping\n",
                         step, (int)e, errno);
        if (write(2, msg, k) < 0) { /* nothing more to do */ }
        _exit(70);
    }
    return want;
}

/* All of b's whole pages back from the device (g_fault held): read-only after, host and device
   equal. */
static size_t fetch_pages(blk *b) {
    size_t n = fetch_range(b, b->plo, b->phi);
    b->prot = PAGES_RO;
    b->dirty = 0;
    forget_chunks(b);
    return n;
}

/* Chunks of the whole pages that the host's touches bring back alone: a block of at least
   FETCH_MIN_CHUNKS of them left on device 0 (PAGES_NONE) comes back a chunk at a time, as the host
   touches them, and a chunk the host writes is sent back alone before the device next uses the
   block (settle_chunks). A program that touches one element of a result left on the device
   (correlation's `symmat[M-1][M-1] = 1.0` after the region that wrote all 256 MiB of it) waited
   for the whole block: 88 ms on an H200. */
#define FETCH_CHUNK ((uintptr_t)2 << 20)
#define FETCH_MIN_CHUNKS 4
enum { CHUNK_DEVICE = 0, /* only device 0 has it: inaccessible */
       CHUNK_EQUAL = 1,  /* back on the host, unchanged: read-only */
       CHUNK_HOST = 2    /* the host wrote it: writable, device 0's copy stale */
};

/* b's chunk k as [*lo, *hi); the number of chunks. */
static size_t chunk_at(const blk *b, size_t k, char **lo, char **hi) {
    uintptr_t first = (uintptr_t)b->plo & ~(FETCH_CHUNK - 1);
    *lo = (char *)(first + k * FETCH_CHUNK);
    *hi = *lo + FETCH_CHUNK;
    if (*lo < b->plo) *lo = b->plo;
    if (*hi > b->phi) *hi = b->phi;
    return ((uintptr_t)b->phi - first + FETCH_CHUNK - 1) / FETCH_CHUNK;
}

/* The host touched address a of b, whose newest copy is device 0's (from the fault handler, g_fault
   held): a's chunk comes back read-only if it is not back yet, else (a write) becomes writable.
   Once every chunk is back the block is as after fetch_pages, or, where the host wrote some, as
   after a host write (the device copy stale). Returns 0 when it did nothing (a small block): the
   caller then deals with the whole block; 2 when the chunk is writable already (another thread
   made it so after this one's fault: re-running the access is all there is to do; dealing with
   the whole block instead would send the chunk to the device and take the pages away while that
   thread may still be writing them, losing its writes). */
static int fetch_chunk(blk *b, char *a) {
    char *lo, *hi;
    size_t k = ((uintptr_t)a - ((uintptr_t)b->plo & ~(FETCH_CHUNK - 1))) / FETCH_CHUNK;
    size_t n = chunk_at(b, k, &lo, &hi);
    if (n < FETCH_MIN_CHUNKS || k >= n) return 0;
    if (!b->got && !(b->got = calloc(n, 1))) return 0;
    if (b->got[k] == CHUNK_DEVICE) {
        double t0 = ompcl_now();
        g_lazy_bytes += fetch_range(b, lo, hi);
        g_lazy_chunks++;
        g_lazy_t += ompcl_now() - t0;
        b->got[k] = CHUNK_EQUAL;
        b->ngot++;
    } else if (b->got[k] == CHUNK_EQUAL) {
        if (mprotect(lo, hi - lo, PROT_READ | PROT_WRITE)) return 0;
        b->got[k] = CHUNK_HOST;
        b->unwritten = 0;
        xc_stale(b);
    } else return 2;
    if (b->ngot == n) { /* every chunk back */
        int wrote = 0;
        for (size_t i = 0; i < n; i++) wrote |= b->got[i] == CHUNK_HOST;
        if (wrote) {
            unprotect(b);
            b->dirty = 1;
        } else {
            forget_chunks(b);
            b->prot = PAGES_RO;
            b->dirty = 0;
        }
    }
    return 1;
}

/* Before anything but the fault handler uses a block whose chunks came back one by one (g_fault
   held): the chunks the host wrote go to device 0, and the block is wholly device 0's again
   (PAGES_NONE, every chunk inaccessible), as it was before the host touched it. */
static void settle_chunks(blk *b) {
    if (!b->got) return;
    char *lo, *hi;
    size_t n = chunk_at(b, 0, &lo, &hi);
    for (size_t k = 0; k < n; k++) {
        if (b->got[k] != CHUNK_HOST) continue;
        chunk_at(b, k, &lo, &hi);
        /* a large ompcl_malloc block owns its last page whole: only its size is on the device */
        size_t len = (b->base + b->size < hi ? b->base + b->size : hi) - lo;
        cl_int e = cl.EnqueueWriteBuffer(g_q, b->mem, 1, lo - b->base, len, lo, 0, NULL, NULL);
        if (e) {
            fprintf(stderr, "ompcl: error: sending the host's changes of a result left on the device failed (%d); stopping\n", (int)e);
            exit(70);
        }
    }
    if (pages_to_none(b)) {
        /* the chunks stay as they are: bring the rest back instead */
        for (size_t k = 0; k < n; k++)
            if (b->got[k] == CHUNK_DEVICE) {
                chunk_at(b, k, &lo, &hi);
                fetch_range(b, lo, hi);
            }
        unprotect(b);
        b->dirty = 1;
    }
}

/* The host is about to touch b (g_fault held): make its pages current (and writable if `write`). */
static void host_access(blk *b, int write) {
    settle_chunks(b);
    if (b->prot == PAGES_NONE) {
        double t0 = ompcl_now();
        g_lazy_bytes += fetch_pages(b);
        g_lazy_n++;
        g_lazy_t += ompcl_now() - t0;
    }
    if (write && b->prot) {
        unprotect(b);
        b->dirty = 1;
        b->unwritten = 0;
        xc_stale(b);
    }
}

static void segv(int sig, siginfo_t *si, void *ctx) {
    char *a = (char *)si->si_addr;
    /* The state is read under g_fault: another thread may have changed the protection between this
       thread's fault and now (two threads writing one read-only block at once: the second finds it
       writable already), and then re-running the access is all there is to do. The same address
       faulting again with the pages writable and no protection changed since (g_prot_gen) is not
       ours (a guard against looping forever). A count that ignored the changes in between added
       up a thread's lost races over a time loop (the same element written first every step: NPB
       LU on 3 threads and more) and killed the program on the fourth. */
    static __thread char *last;
    static __thread unsigned last_gen;
    static __thread int again;
    int n = g_nbig;
    for (int i = 0; i < n; i++) {
        blk *b = g_big[i];
        if (b && a >= b->plo && a < b->phi) {
            pthread_mutex_lock(&g_fault);
            int ours = b == g_big[i] && b->big, done = 0;
            if (ours && b->prot == PAGES_NONE) { /* a write faults once more */
                int got = fetch_chunk(b, a);
                if (!got) host_access(b, 0);
                done = got != 2;
            } else if (ours && b->prot == PAGES_RO) {
                host_access(b, 1);
                done = 1;
            }
            if (done) {
                again = 0;
                fault_unlock();
            } else {
                unsigned gen = g_prot_gen;
                if (ours) again = last == a && last_gen == gen ? again + 1 : 1;
                ours = ours && again <= 3;
                last_gen = gen;
                pthread_mutex_unlock(&g_fault);
            }
            last = a;
            if (!ours) break;
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

/* Installs the SIGSEGV handler, or puts it back. Code the OpenCL driver runs can take it away:
   LLVM (in PoCL, and in cudacl's compiler) installs handlers of its own and, taking them down,
   restores what it saw first, which may predate ours (SIG_DFL): a later fault of tracking then
   killed the program (front test f4 with lazy copy-back on PoCL, about half the runs, the core
   showing another thread in LLVM's sigaction). So it is checked, and put back, after every launch
   (protect, written_on_device, the end of ompcl_region_opencl) and every copy-back. */
static void install_handler(void) {
    struct sigaction cur;
    if (g_handler && sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == segv)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_oldsa);
    g_handler = 1;
}

/* ---- the treap (callers hold g_lock) */
static unsigned treap_rand(void) {
    static unsigned s = 2463534242u;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

static blk *treap_insert(blk *t, blk *b) {
    if (!t) return b;
    if (b->base < t->base) {
        t->left = treap_insert(t->left, b);
        if (t->left->prio > t->prio) { blk *l = t->left; t->left = l->right; l->right = t; t = l; }
    } else {
        t->right = treap_insert(t->right, b);
        if (t->right->prio > t->prio) { blk *r = t->right; t->right = r->left; r->left = t; t = r; }
    }
    return t;
}

/* one tree of two, every base of a below every base of b */
static blk *treap_merge(blk *a, blk *b) {
    if (!a) return b;
    if (!b) return a;
    if (a->prio > b->prio) { a->right = treap_merge(a->right, b); return a; }
    b->left = treap_merge(a, b->left);
    return b;
}

static blk *treap_remove(blk *t, const char *base, blk **out) {
    if (!t) return NULL;
    if (base < t->base) t->left = treap_remove(t->left, base, out);
    else if (base > t->base) t->right = treap_remove(t->right, base, out);
    else { *out = t; return treap_merge(t->left, t->right); }
    return t;
}

/* the block with the greatest base <= p */
static blk *treap_floor(const char *p) {
    blk *best = NULL;
    for (blk *t = g_root; t;) {
        if (t->base <= p) { best = t; t = t->right; }
        else t = t->left;
    }
    return best;
}

/* the block with the smallest base > p */
static blk *treap_above(const char *p) {
    blk *best = NULL;
    for (blk *t = g_root; t;) {
        if (t->base > p) { best = t; t = t->left; }
        else t = t->right;
    }
    return best;
}

static void blk_release(blk *b);

static blk *tab_remove(void *p) {
    blk *out = NULL;
    g_root = treap_remove(g_root, p, &out);
    if (out) g_nblk--;
    return out;
}

static blk *tab_insert(void *p, size_t n, int is_global) {
    /* a block at the same address was freed behind the runtime's back (by a library): forget it */
    blk *old = tab_remove(p);
    if (old) blk_release(old);
    blk *b = calloc(1, sizeof *b);
    b->base = p;
    b->size = n;
    b->is_global = is_global;
    b->prio = treap_rand();
    uintptr_t lo = ((uintptr_t)p + g_page - 1) & ~(uintptr_t)(g_page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(g_page - 1);
    b->dirty = 1;
    if (hi > lo && hi - lo >= (uintptr_t)g_page && (g_nfreeslot || g_nbig < MAXBIG)) {
        b->plo = (char *)lo;
        b->phi = (char *)hi;
        b->big = 1;
        b->bigslot = g_nfreeslot ? g_freeslot[--g_nfreeslot] : g_nbig;
        g_big[b->bigslot] = b;
        if (b->bigslot == g_nbig) g_nbig++;
    }
    g_root = treap_insert(g_root, b);
    g_nblk++;
    return b;
}

/* block holding address p (p may be one past the end) */
static blk *tab_find(const char *p) {
    blk *b = treap_floor(p);
    return b && p <= b->base + b->size ? b : NULL;
}

static void blk_release(blk *b) {
    pthread_mutex_lock(&g_fault);
    unprotect(b); /* freed: whatever the device holds is not wanted any more */
    fault_unlock();
    if (b->big) {
        g_big[b->bigslot] = NULL;
        g_freeslot[g_nfreeslot++] = b->bigslot;
    }
    if (b->mem && cl.ReleaseMemObject) cl.ReleaseMemObject(b->mem);
    if (b->xc) {
        for (int d = 1; d < MAXDEV; d++)
            if (b->xc->mem[d] && cl.ReleaseMemObject) cl.ReleaseMemObject(b->xc->mem[d]);
        free(b->xc);
        b->xc = NULL;
    }
    if (!b->big) free(b); /* big ones stay (the signal handler may read them) */
}

/* The host is about to read (write = 0) or write [p, p+n) outside the program's own code (a system
   call cannot take the fault): make the blocks it overlaps current there. */
static void host_range_locked(const void *p, size_t n, int write) {
    const char *a = p;
    blk *b = treap_floor(a);
    if (!b || a >= b->base + b->size) b = treap_above(a);
    for (; b && b->base < a + n; b = treap_above(b->base)) {
        if (!b->big || b->base + b->size <= a) continue;
        pthread_mutex_lock(&g_fault);
        host_access(b, write);
        fault_unlock();
    }
}

static void host_range(const void *p, size_t n, int write) {
    pthread_mutex_lock(&g_lock);
    host_range_locked(p, n, write);
    pthread_mutex_unlock(&g_lock);
}

/* Blocks of 2 MiB and more start on a 2 MiB boundary, fill whole 2 MiB pages and ask the kernel for
   transparent huge pages (where it has them: `madvise` or `always` mode): changing the protection
   of a 64 MiB array then touches 32 page-table entries instead of 16384 (3 ms -> 0.02 ms on the
   build machine; the runtime protects every array a region used, after the region), and the
   program's first touch and the driver's staging copies take fewer TLB misses. OMPCL_HUGEPAGES=0:
   page-aligned blocks as before. */
#define HUGE_PAGE ((size_t)2 << 20)
static int huge_pages(void) {
    static int on = -1;
    if (on < 0) {
        const char *h = getenv("OMPCL_HUGEPAGES");
        on = !(h && !strcmp(h, "0"));
    }
    return on;
}

void *ompcl_malloc(size_t n) {
    void *p;
    if (n >= 16384) {
        size_t al = n >= HUGE_PAGE && huge_pages() ? HUGE_PAGE : (size_t)g_page;
        size_t r = (n + al - 1) & ~(al - 1);
        if (posix_memalign(&p, al, r)) return NULL;
#ifdef MADV_HUGEPAGE
        if (al == HUGE_PAGE) madvise(p, r, MADV_HUGEPAGE);
#endif
        pthread_mutex_lock(&g_lock);
        blk *b = tab_insert(p, r, 0);
        b->size = n;
        /* read-only until the host first writes it (tracked as any block): a result array the host
           never fills is not sent to the device (the untouched pages cost a fault each to read) */
        const char *tr = getenv("OMPCL_TRACK");
        if (b->big && !(tr && !strcmp(tr, "0"))) {
            install_handler();
            pthread_mutex_lock(&g_fault);
            if (mprotect(b->plo, b->phi - b->plo, PROT_READ) == 0) {
                b->prot = PAGES_RO;
                b->dirty = 0;
                b->unwritten = 1;
            }
            fault_unlock();
        }
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

void ompcl_host_wrote(void *p, size_t n) { host_range(p, n, 1); }

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
/* writes out of memory a kernel may have written: the system call reads the pages in the kernel,
   where no fault reaches the handler, so they are copied back first */
size_t ompcl_fwrite(const void *p, size_t s, size_t n, FILE *f) {
    host_range(p, s * n, 0);
    return fwrite(p, s, n, f);
}
ssize_t ompcl_write(int fd, const void *p, size_t n) {
    host_range(p, n, 0);
    return write(fd, p, n);
}
ssize_t ompcl_pwrite(int fd, const void *p, size_t n, off_t off) {
    host_range(p, n, 0);
    return pwrite(fd, p, n, off);
}

/* the program's calls, linked with --wrap (see rt_base.c) */
void *__wrap_malloc(size_t n) { return ompcl_malloc(n); }
void *__wrap_calloc(size_t n, size_t s) { return ompcl_calloc(n, s); }
void *__wrap_realloc(void *p, size_t n) { return ompcl_realloc(p, n); }
void __wrap_free(void *p) { ompcl_free(p); }
int __wrap_posix_memalign(void **pp, size_t al, size_t n) { return ompcl_posix_memalign(pp, al, n); }
void *__wrap_aligned_alloc(size_t al, size_t n) { return ompcl_aligned_alloc(al, n); }
void *__wrap_memalign(size_t al, size_t n) { return ompcl_memalign(al, n); }
void *__wrap_valloc(size_t n) { return ompcl_valloc(n); }
