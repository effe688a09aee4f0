/* ompcl runtime: included first by every host C file ompcl generates. */
#ifndef OMPCL_RT_H
#define OMPCL_RT_H
/* long long, mixed declarations: the header is valid in every -std gcc takes, quiet under -pedantic */
#pragma GCC system_header
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Loop bounds and trip counts in 128 bits: the difference of two 64-bit bounds (LLONG_MAX - 30001 and
   -LLONG_MAX, an unsigned long long above LLONG_MAX) and a step beyond LLONG_MAX fit (libgomp's loop-12) */
__extension__ typedef __int128 ompcl_i128;

typedef struct ompcl_module {
    const char *file;     /* source file */
    const char *source;   /* OpenCL C of every kernel of this file */
    const char *options;  /* clBuildProgram options */
    int nregions;
    int needs_fp64;
    void *state;          /* runtime-owned */
    size_t const_bytes;   /* the most bytes of __constant arguments one kernel takes */
    int const_args;       /* the most __constant arguments one kernel takes */
} ompcl_module;

/* OMPCL_WORK: no kernel argument; the work of the iteration whose loop variable is i is about
   sl_alo*i + sl_lo (a triangle's inner trip count), for cutting chunks of equal work (rt_split.c).
   OMPCL_NOTE: no kernel argument; name says why the loop cannot be split over devices.
   OMPCL_ROWS: a table of row pointers (`T **`, used as p[i][j]; rt_rows.c): addr is the table
   pointer, size the element's bytes; two kernel arguments, the rows' buffer and their offsets */
enum { OMPCL_VAL = 1, OMPCL_BUF = 2, OMPCL_TMP = 3, OMPCL_RED = 4, OMPCL_LASTP = 5, OMPCL_LOCKS = 6, OMPCL_WORK = 7,
       OMPCL_NOTE = 8, OMPCL_ROWS = 9 };

typedef struct ompcl_arg {
    int kind;
    const char *name;
    void *addr;    /* VAL: &value; BUF: the pointer value (address in a registered block);
                      TMP: address of a local object; RED/LASTP: &variable */
    size_t size;   /* VAL/TMP/RED/LASTP: bytes; LOCKS: bytes of the kernel's critical-section
                      locks (one int per name; zeroed before the launch) */
    int written;   /* BUF/TMP/ROWS: the region may write it */
    int rtype;     /* RED: 1 int 2 uint 3 long 4 ulong 5 float 6 double; BUF: 1 = a __constant
                      parameter (read-only in the kernel) */
    int rop;       /* RED: 1 + 2 * 3 - 4 & 5 | 6 ^ 7 && 8 || 9 max 10 min; BUF: 1 = an array object, which lies
                      inside its block (never taken for one past the end of another); TMP: 1 = a
                      scalar or struct (a pointer one past its end is not into it) */
    /* BUF, for a region spread over several devices (rt_split.c): sl = 1 when every byte the
       iteration whose loop variable is i touches through this pointer lies in
       [sl_alo*i + sl_lo, sl_ahi*i + sl_hi) (bytes from addr; the translator's bound from the
       subscripts and the inner loops' ranges); 0 (the default of older initializers): anywhere */
    int sl;
    long long sl_alo, sl_ahi, sl_lo, sl_hi;
} ompcl_arg;

/* hints bit: the kernel's outer iteration space may be cut into chunks (one per device), each run
   by the same kernel with its own lb and n (rt_split.c) */
#define OMPCL_HINT_SPLIT 256
/* hints bit: every element the kernel writes is written by one iteration only (row spreading's
   proof held at launch): devices' overlapping written ranges can be merged byte by byte */
#define OMPCL_HINT_ONE_WRITER 512
/* hints bit: the kernel's work-items take iterations a global size apart until n (a reduction):
   the runtime launches at most a few work-groups per compute unit */
#define OMPCL_HINT_STRIDE 1024

/* Run region `rid` as an OpenCL kernel over n iterations; 0 = use the CPU version. hints: bit 0 =
   a light kernel (O(1) work per work-item), the other bits MOMP's target clause. nd: the
   NDRange's dimensions; 2: e0 x n (e0 the fastest), 3: e0 x e1 x n. */
/* the smaller of two limits, either of which may be absent (<= 0) */
static __inline__ long long ompcl_min_pos(long long a, long long b) { return a <= 0 ? b : b <= 0 ? a : a < b ? a : b; }
int ompcl_region_opencl(ompcl_module *m, int rid, int line, int hints, long long lb, long long st,
                        long long n, int nd, long long e0, long long e1, ompcl_arg *a, int na);
/* Several kernels for one region: all made ready before any runs (0 = use the CPU version). */
int ompcl_kernel_ready(ompcl_module *m, int rid, int line, ompcl_arg *a, int na);
void ompcl_sequence_failed(ompcl_module *m, int line);
/* 1 if no two memory arguments (one of them written) share a block */
int ompcl_no_alias(ompcl_arg *a, int na);
/* 1 if the elements [a*st*p + b*st1*q, +size) for 0 <= p < n, 0 <= q < n1 are pairwise disjoint */
int ompcl_disjoint(long long a, long long st, long long n, long long b, long long st1, long long n1,
                   long long size);
double ompcl_now(void);
void ompcl_cpu_end(ompcl_module *m, int rid, int line, double t0);

/* allocation table (MOMP 4.1.2) */
void *ompcl_malloc(size_t n);
void *ompcl_calloc(size_t n, size_t s);
void *ompcl_realloc(void *p, size_t n);
void ompcl_free(void *p);
void *ompcl_valloc(size_t n);
void *ompcl_aligned_alloc(size_t al, size_t n);
void *ompcl_memalign(size_t al, size_t n);
int ompcl_posix_memalign(void **p, size_t al, size_t n);
void ompcl_register_global(void *p, size_t n);
/* I/O that the kernel may write straight into user memory */
size_t ompcl_fread(void *p, size_t s, size_t n, FILE *f);
ssize_t ompcl_read(int fd, void *p, size_t n);
ssize_t ompcl_pread(int fd, void *p, size_t n, off_t off);
/* I/O that reads user memory in the kernel (no fault reaches the runtime): results come back first */
size_t ompcl_fwrite(const void *p, size_t s, size_t n, FILE *f);
ssize_t ompcl_write(int fd, const void *p, size_t n);
ssize_t ompcl_pwrite(int fd, const void *p, size_t n, off_t off);
/* tell the runtime the host wrote [p, p+n) (done automatically by page protection) */
void ompcl_host_wrote(void *p, size_t n);

/* ---- OpenMP 4.5 device data environment (rt_target.c) ---- */
typedef struct ompcl_map {
    void *addr;  /* host address of the mapped storage (array, section) */
    size_t size; /* bytes */
    int type;    /* OMPCL_MAP_* bits */
    void *obj;   /* the whole array a section belongs to (a variable), or NULL */
    size_t objsize;
} ompcl_map;
/* OMPCL_MAP_PRESENCE: a scalar, a struct or a struct member: an entry of the present table with no
   device storage (kernels copy such variables in and out at each launch), so that
   omp_target_is_present and the map types of enclosing constructs hold */
enum { OMPCL_MAP_TO = 1, OMPCL_MAP_FROM = 2, OMPCL_MAP_RELEASE = 8, OMPCL_MAP_DELETE = 16, OMPCL_MAP_ALWAYS = 32, OMPCL_MAP_PRESENCE = 64 };
int ompcl_scalar_back(const void *p, size_t n, int dflt);
/* 1: the construct uses the OpenCL device; 0: the host (no device, if(false), device(initial)) */
int ompcl_target_device(ompcl_module *m, int line, long long dev, int ifc);
void ompcl_target_map_enter(int d, ompcl_map *mp, int n);
void ompcl_target_map_exit(int d, ompcl_map *mp, int n);
void ompcl_target_update(int d, ompcl_map *mp, int n);
/* a target region that runs on the host while data is on the device: device copies -> host,
   and back afterwards */
void ompcl_target_host_begin(int d);
void ompcl_target_host_end(int d);
/* set while a target region's kernels launch: only they may use blocks mapped to the device (a
   host `parallel` region inside `target data` works on the host's copies: it runs on the CPU) */
extern __thread int ompcl_in_target;

/* ---- CPU versions: ompcl's OpenMP runtime on pthreads (OMPCL_PTHREADS builds) ---- */
typedef struct ompc_ws {
    long long n, chunk, k, it, executed;
    int sched, ordered, nt, tid;
    void *slot;
} ompc_ws;
void ompc_parallel(void (*fn)(void), int num_threads, int ifcond);
void ompc_for_init(ompc_ws *w, long long n, int sched, long long chunk, int ordered);
int ompc_for_next(ompc_ws *w, long long *lo, long long *hi);
void ompc_for_end(ompc_ws *w, int nowait);
void ompc_ordered_begin(void);
void ompc_ordered_end(void);
void ompc_ordered_iter_end(ompc_ws *w, long long it);
int ompc_single_begin(void);
void ompc_single_end(int nowait);
void ompc_critical_begin(const char *name);
void ompc_critical_end(const char *name);
void ompc_atomic_begin(void);
void ompc_atomic_end(void);
void ompc_red_lock(void);
void ompc_red_unlock(void);
void ompc_barrier(void);
int ompc_thread_num(void);
#endif
