/* ompcl runtime, part of one C file (see rt_base.c): the OpenMP 4.5 device data environment on top
 * of the allocation table, and the omp_* device library.
 *
 * Device 0 is the OpenCL device (when there is one); the initial (host) device is number
 * omp_get_num_devices(). Device addresses are the host addresses of the mapped storage: a block of
 * the allocation table has one device buffer (cl_mem), and a pointer into it becomes (buffer,
 * offset) at a launch, as for parallel loops. Storage the table does not know (stack arrays) is
 * registered while it is mapped.
 *
 * The present table holds one entry per mapped section: [lo, hi), a reference count, its block.
 * Mapping a section that is not present creates an entry (and copies it in for `to`); a section
 * inside a present one only counts a reference. Unmapping decrements; at zero (or with `delete`)
 * the entry goes, copied out first for `from`. `always` copies whatever the count. While a block has
 * entries (b->held), launches use its device copy as it is: not sent from the host and not copied
 * back after the kernel (rt_launch.c). A target region that runs on the host while data is mapped
 * gets the device copies of every entry first and sends them back after (the spec's host fallback
 * for a region that could not run on the device).
 */
typedef struct tentry {
    char *lo, *hi;
    long refs;
    blk *b;
    int registered; /* the block was registered for this entry (stack storage) */
    int devalloc;   /* omp_target_alloc'd: the block is device storage */
    long stamp;     /* the map_enter call that made it */
    int presence;   /* OMPCL_MAP_PRESENCE: no block, no transfers */
    struct tentry *next;
} tentry;
__thread int ompcl_in_target;
static tentry *g_present;
static int g_default_device;
/* OMPCL_PROFILE: the transfers of the data constructs (map, update, host fallback copies) */
static double g_dt_h2d, g_dt_d2h;
static size_t g_db_h2d, g_db_d2h;
static int g_dprof;

static void print_target_profile(void) {
    fprintf(stderr, "ompcl-profile: target data: h2d=%.3f ms (%zu B) d2h=%.3f ms (%zu B)\n", g_dt_h2d * 1e3, g_db_h2d,
            g_dt_d2h * 1e3, g_db_d2h);
}

/* called with g_launch held, around the transfers of one data construct */
static void dstat_begin(void) {
    tm_h2d = tm_d2h = 0;
    by_h2d = by_d2h = 0;
    if (g_profile && !g_dprof) {
        g_dprof = 1;
        atexit(print_target_profile);
    }
}
static void dstat_end(void) {
    g_dt_h2d += tm_h2d;
    g_dt_d2h += tm_d2h;
    g_db_h2d += by_h2d;
    g_db_d2h += by_d2h;
}

static void target_fail(const char *what, int err) {
    fprintf(stderr, "ompcl: error: device data environment: %s failed (%d); stopping\n", what, err);
    exit(70);
}

static tentry *present_find_any(const char *p, size_t n, int presence) {
    for (tentry *e = g_present; e; e = e->next)
        if (!e->devalloc && (presence || !e->presence) && p >= e->lo && p + n <= e->hi &&
            (n || p < e->hi || e->lo == e->hi))
            return e;
    return NULL;
}
/* the entry of storage with device copies (not presence entries) holding [p, p+n) */
static tentry *present_find(const char *p, size_t n) { return present_find_any(p, n, 0); }

/* an entry sharing bytes with [p, p+n): an array mapped implicitly (or again) while a section
   of it is present uses that section's entry (OpenMP 5.0's rule; 4.5 leaves it undefined) */
static tentry *present_overlap(const char *p, size_t n) {
    for (tentry *e = g_present; e; e = e->next)
        if (!e->devalloc && !e->presence && p < e->hi && p + n > e->lo) return e;
    return NULL;
}

static long g_stamp;              /* map_enter calls so far */
static __thread long t_last_stamp; /* this thread's last one (a target construct's own maps) */

/* Whether a target region's write of a scalar or struct at [p, p+n) comes back to the host: at
   once if it was present before the construct (an enclosing construct may copy it out at its
   end: the host keeps no second copy to copy it from then), else as this construct's map type
   says (dflt: from/tofrom, or an implicit tofrom map of a struct) */
int ompcl_scalar_back(const void *p, size_t n, int dflt) {
    const char *c = p;
    int before = 0;
    pthread_mutex_lock(&g_lock);
    for (tentry *e = g_present; e; e = e->next)
        if (!e->devalloc && c < e->hi && c + n > e->lo && e->stamp != t_last_stamp) before = 1;
    pthread_mutex_unlock(&g_lock);
    return before ? 1 : dflt;
}

int omp_get_num_devices(void) {
    pthread_mutex_lock(&g_launch);
    init();
    pthread_mutex_unlock(&g_launch);
    return g_have_cl ? 1 : 0;
}
int omp_get_initial_device(void) { return omp_get_num_devices(); }
/* host code runs on the initial device (kernels see 0: the translator's OpenCL prelude) */
int omp_get_device_num(void) { return omp_get_initial_device(); }
int omp_get_default_device(void) { return g_default_device; }
void omp_set_default_device(int d) { g_default_device = d; }
/* host code: kernels see 0 (the translator's OpenCL prelude) */
int omp_is_initial_device(void) { return 1; }
#ifdef OMPCL_PTHREADS
int omp_get_num_teams(void) { return 1; }
int omp_get_team_num(void) { return 0; }
#endif

int ompcl_target_device(ompcl_module *m, int line, long long dev, int ifc) {
    (void)m;
    (void)line;
    if (!ifc) return 0;
    if (dev < 0) dev = g_default_device;
    return dev == 0 && omp_get_num_devices() > 0;
}

static void copy_in(tentry *e) {
    if (e->hi > e->lo && wr(e->b->mem, e->lo - e->b->base, e->hi - e->lo, e->lo)) target_fail("clEnqueueWriteBuffer", 0);
}
static void copy_range_out(blk *b, char *lo, size_t n) {
    if (!n) return;
    unprotect(b);
    if (rd(b->mem, lo - b->base, n, lo)) target_fail("clEnqueueReadBuffer", 0);
}

static void map_one(ompcl_map *x) {
    char *p = x->addr;
    size_t n = x->size;
    if (x->type & OMPCL_MAP_PRESENCE) {
        tentry *e = present_find_any(p, n, 1);
        if (e) {
            e->refs++;
            return;
        }
        e = calloc(1, sizeof *e);
        e->lo = p;
        e->hi = p + n;
        e->refs = 1;
        e->presence = 1;
        e->stamp = g_stamp;
        e->next = g_present;
        g_present = e;
        return;
    }
    tentry *e = present_find(p, n);
    if (!e && n) e = present_overlap(p, n);
    if (e) {
        e->refs++;
        if ((x->type & OMPCL_MAP_ALWAYS) && (x->type & OMPCL_MAP_TO) && n && wr(e->b->mem, p - e->b->base, n, p))
            target_fail("clEnqueueWriteBuffer", 0);
        return;
    }
    if (!n) return; /* a zero-length section of storage that is not present: nothing */
    blk *b = tab_find(p);
    int reg = 0;
    if (b && (p + n > b->base + b->size || p == b->base + b->size)) b = NULL;
    if (!b) {
        /* storage the allocation table does not know (stack arrays): register it while mapped,
           the whole array when the section is of an array variable (kernels address it from
           its start) */
        char *o = x->obj;
        /* (tab_find also answers a block that ends at o: a stack array right below this one,
           mapped before, must not make this array's later rows blocks of their own) */
        blk *below = o ? tab_find(o) : NULL;
        if (below && o >= below->base + below->size) below = NULL;
        if (o && o <= p && p + n <= o + x->objsize && !present_overlap(o, x->objsize) && !below)
            b = tab_insert(o, x->objsize, -2);
        else
            b = tab_insert(p, n ? n : 1, -2);
        reg = 1;
    }
    if (!b->held) {
        /* the block's device copy becomes the current one: start it from the host's */
        if (!b->mem) {
            if (sync_to_device(b)) target_fail("clCreateBuffer/clEnqueueWriteBuffer", 0);
        } else if (b->dirty || !b->big || !b->prot || b->got || b->plo > b->base || b->base + b->size > b->phi) {
            if (sync_to_device(b)) target_fail("clEnqueueWriteBuffer", 0);
        }
    }
    e = calloc(1, sizeof *e);
    e->lo = p;
    e->hi = p + n;
    e->refs = 1;
    e->b = b;
    e->registered = reg;
    e->stamp = g_stamp;
    e->next = g_present;
    g_present = e;
    b->held++;
    if ((x->type & OMPCL_MAP_TO) && b->held > 1) copy_in(e);
}

static void unmap_one(ompcl_map *x) {
    char *p = x->addr;
    size_t n = x->size;
    tentry *e = present_find_any(p, n, (x->type & OMPCL_MAP_PRESENCE) != 0);
    if (!e && n) e = present_overlap(p, n);
    if (!e) return;
    if (e->presence) {
        if (x->type & OMPCL_MAP_DELETE) e->refs = 0;
        else if (e->refs > 0) e->refs--;
        if (e->refs > 0) return;
        for (tentry **pp = &g_present; *pp; pp = &(*pp)->next)
            if (*pp == e) { *pp = e->next; break; }
        free(e);
        return;
    }
    if (p < e->lo || p + n > e->hi) {
        p = e->lo;
        n = e->hi - e->lo;
    }
    if (x->type & OMPCL_MAP_DELETE) e->refs = 0;
    else if (e->refs > 0) e->refs--;
    if ((x->type & OMPCL_MAP_FROM) && (e->refs == 0 || (x->type & OMPCL_MAP_ALWAYS))) copy_range_out(e->b, p, n);
    if (e->refs > 0) return;
    for (tentry **pp = &g_present; *pp; pp = &(*pp)->next)
        if (*pp == e) { *pp = e->next; break; }
    blk *b = e->b;
    if (--b->held == 0) {
        /* the host copy is the current one again: the next launch sends the block */
        unprotect(b);
        b->dirty = 1;
        if (e->registered && tab_remove(b->base) == b) blk_release(b);
    }
    free(e);
}

void ompcl_target_map_enter(int d, ompcl_map *mp, int n) {
    if (!d) return;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    dstat_begin();
    t_last_stamp = ++g_stamp;
    for (int i = 0; i < n; i++) map_one(&mp[i]);
    dstat_end();
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
}

void ompcl_target_map_exit(int d, ompcl_map *mp, int n) {
    if (!d) return;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    /* in reverse order: a section inside another one of the same construct goes first */
    dstat_begin();
    for (int i = n - 1; i >= 0; i--) unmap_one(&mp[i]);
    dstat_end();
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
}

void ompcl_target_update(int d, ompcl_map *mp, int n) {
    if (!d) return;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    dstat_begin();
    for (int i = 0; i < n; i++) {
        tentry *e = present_find(mp[i].addr, mp[i].size);
        if (!e || !mp[i].size) continue;
        char *p = mp[i].addr;
        if (mp[i].type & OMPCL_MAP_TO) {
            if (wr(e->b->mem, p - e->b->base, mp[i].size, p)) target_fail("clEnqueueWriteBuffer", 0);
        } else if (mp[i].type & OMPCL_MAP_FROM) {
            copy_range_out(e->b, p, mp[i].size);
        }
    }
    dstat_end();
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
}

void ompcl_target_host_begin(int d) {
    if (!d) return;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    dstat_begin();
    for (tentry *e = g_present; e; e = e->next)
        if (!e->presence) copy_range_out(e->b, e->lo, e->hi - e->lo);
    dstat_end();
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
}

void ompcl_target_host_end(int d) {
    if (!d) return;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    dstat_begin();
    for (tentry *e = g_present; e; e = e->next)
        if (!e->presence) copy_in(e);
    dstat_end();
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
}

/* ---- device memory routines: device storage is a registered host block whose device buffer is
   the current copy (an entry of the present table that maps never find) */
void *omp_target_alloc(size_t size, int dev) {
    if (dev != 0 || omp_get_num_devices() == 0) return dev == omp_get_initial_device() ? malloc(size ? size : 1) : NULL;
    void *p = ompcl_malloc(size ? size : 1);
    if (!p) return NULL;
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    blk *b = tab_find(p);
    int ok = b && !sync_to_device(b);
    if (ok) {
        tentry *e = calloc(1, sizeof *e);
        e->lo = p;
        e->hi = (char *)p + size;
        e->refs = 1;
        e->b = b;
        e->devalloc = 1;
        e->next = g_present;
        g_present = e;
        b->held++;
    }
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
    if (!ok) {
        ompcl_free(p);
        return NULL;
    }
    return p;
}

void omp_target_free(void *p, int dev) {
    if (!p) return;
    if (dev != 0 || omp_get_num_devices() == 0) {
        if (dev == omp_get_initial_device()) free(p);
        return;
    }
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    int found = 0;
    for (tentry **pp = &g_present; *pp; pp = &(*pp)->next)
        if ((*pp)->devalloc && (*pp)->lo == (char *)p) {
            tentry *e = *pp;
            *pp = e->next;
            e->b->held--;
            free(e);
            found = 1;
            break;
        }
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
    if (found) ompcl_free(p);
}

int omp_target_is_present(const void *p, int dev) {
    if (!p) return 0;
    if (dev == omp_get_initial_device()) return 1;
    if (dev != 0) return 0;
    pthread_mutex_lock(&g_lock);
    int r = present_find_any(p, 0, 1) != NULL;
    pthread_mutex_unlock(&g_lock);
    return r;
}

int omp_target_memcpy(void *dst, const void *src, size_t len, size_t doff, size_t soff, int ddev, int sdev) {
    int host = omp_get_initial_device();
    if ((ddev != 0 && ddev != host) || (sdev != 0 && sdev != host)) return 22; /* EINVAL */
    char *d = (char *)dst + doff;
    const char *s = (const char *)src + soff;
    if (!len) return 0;
    if (ddev == host && sdev == host) {
        memmove(d, s, len);
        return 0;
    }
    pthread_mutex_lock(&g_launch);
    pthread_mutex_lock(&g_lock);
    blk *db = ddev == 0 ? tab_find(d) : NULL;
    blk *sb = sdev == 0 ? tab_find(s) : NULL;
    int r = 0;
    if ((ddev == 0 && (!db || !db->mem)) || (sdev == 0 && (!sb || !sb->mem))) r = 22;
    else if (ddev == 0 && sdev == host) r = wr(db->mem, d - db->base, len, s) ? 5 : 0;
    else if (ddev == host && sdev == 0) {
        /* the destination may be write-protected host memory, or a block whose newest copy is
           still on the device (a kernel's results): the host's copy current first, then written */
        blk *hb = tab_find(d);
        if (hb) {
            pthread_mutex_lock(&g_fault);
            host_access(hb, 1);
            fault_unlock();
        }
        r = rd(sb->mem, s - sb->base, len, d) ? 5 : 0;
    } else {
        char *tmp = malloc(len);
        r = !tmp || rd(sb->mem, s - sb->base, len, tmp) || wr(db->mem, d - db->base, len, tmp) ? 5 : 0;
        free(tmp);
    }
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_launch);
    return r;
}
