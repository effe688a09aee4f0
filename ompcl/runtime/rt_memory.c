/* ompcl runtime, part of one C file (see rt_base.c): the host-allocation table (MOMP 4.1.2) and host-write tracking by page protection. */
/* ---------------------------------------------------------------- allocation table */
typedef struct blk {
    char *base;
    size_t size;
    char *plo, *phi;        /* whole pages that can be write-protected */
    cl_mem mem;
    volatile int dirty;     /* host wrote the protected part since the last sync */
    volatile int prot;      /* pages currently read-only */
    int big, is_global, bigslot;
    int held;               /* mapped by OpenMP 4.5 data constructs (rt_target.c): the device copy
                               is the current one; launches neither send nor copy it back */
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
