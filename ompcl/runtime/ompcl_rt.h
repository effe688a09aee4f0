/* ompcl runtime: included first by every host C file ompcl generates. */
#ifndef OMPCL_RT_H
#define OMPCL_RT_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct ompcl_module {
    const char *file;     /* source file */
    const char *source;   /* OpenCL C of every kernel of this file */
    const char *options;  /* clBuildProgram options */
    int nregions;
    int needs_fp64;
    void *state;          /* runtime-owned */
} ompcl_module;

enum { OMPCL_VAL = 1, OMPCL_BUF = 2, OMPCL_TMP = 3, OMPCL_RED = 4, OMPCL_LASTP = 5 };

typedef struct ompcl_arg {
    int kind;
    const char *name;
    void *addr;    /* VAL: &value; BUF: the pointer value (address in a registered block);
                      TMP: address of a local object; RED/LASTP: &variable */
    size_t size;   /* VAL/TMP/RED/LASTP: bytes */
    int written;   /* BUF/TMP: the region may write it */
    int rtype;     /* RED: 1 int 2 uint 3 long 4 ulong 5 float 6 double */
    int rop;       /* RED: 1 + 2 * 3 - 4 & 5 | 6 ^ 7 && 8 || */
} ompcl_arg;

/* Run region `rid` as an OpenCL kernel over n iterations; 0 = use the CPU version. */
int ompcl_region_opencl(ompcl_module *m, int rid, int line, int target, long long lb, long long st,
                        long long n, ompcl_arg *a, int na);
double ompcl_now(void);
void ompcl_cpu_end(ompcl_module *m, int rid, int line, double t0);

/* allocation table (MOMP 4.1.2) */
void *ompcl_malloc(size_t n);
void *ompcl_calloc(size_t n, size_t s);
void *ompcl_realloc(void *p, size_t n);
void ompcl_free(void *p);
void ompcl_register_global(void *p, size_t n);
/* I/O that the kernel may write straight into user memory */
size_t ompcl_fread(void *p, size_t s, size_t n, FILE *f);
ssize_t ompcl_read(int fd, void *p, size_t n);
ssize_t ompcl_pread(int fd, void *p, size_t n, off_t off);
/* tell the runtime the host wrote [p, p+n) (done automatically by page protection) */
void ompcl_host_wrote(void *p, size_t n);
#endif
