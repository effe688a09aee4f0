/* ompcl runtime, part of one C file (see rt_base.c): OpenMP on pthreads: the CPU versions' thread runtime and the omp_* library. */
/* (only in OMPCL_PTHREADS builds: with --cpu=cc the C compiler's OpenMP runs the CPU versions) */
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
/* the size of pteam's team, read with pteam under pm: a worker the team does not include must
   not touch pteam, which the master may free as soon as the included workers are done */
static int pteam_n;
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
        int tn = pteam_n;
        pthread_mutex_unlock(&pm);
        if (ws.id < tn) {
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
        pteam_n = n;
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
    /* ordered == 2 (collapse): the turn is an outer iteration, held from its first ordered
       region to its end (each inner iteration may pass an ordered region) */
    if (w->ordered == 2 && w->executed == w->it) return;
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
    if (w->ordered == 2) return;
    pthread_mutex_lock(&t->m);
    s->ord = w->it + 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->m);
}

void ompc_ordered_iter_end(ompc_ws *w, long long it) {
    if (!w->slot || (w->executed == it && w->ordered != 2)) return;
    slot *s = w->slot;
    team *t = t_team;
    pthread_mutex_lock(&t->m);
    while (w->executed != it && s->ord != it) pthread_cond_wait(&t->cv, &t->m);
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
