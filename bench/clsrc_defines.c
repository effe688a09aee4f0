/* LD_PRELOAD shim (bench/clblast_sgemm.c): prints the "#define NAME value" lines at the head of
 * every program source an application creates, which is where CLBlast puts the tuning
 * parameters it picked from its database, then calls the real clCreateProgramWithSource.
 * Build: cc -O2 -shared -fPIC -o clsrc_defines.so bench/clsrc_defines.c -ldl */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

cl_program clCreateProgramWithSource(cl_context c, cl_uint count, const char **strings, const size_t *lengths,
                                     cl_int *err) {
    static cl_program (*real)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clCreateProgramWithSource");
    fprintf(stderr, "[clsrc] program:");
    for (cl_uint i = 0; i < count && strings; i++) {
        const char *s = strings[i];
        size_t len = lengths && lengths[i] ? lengths[i] : strlen(s);
        for (const char *p = s; p < s + len && p - s < 4000;) {
            const char *e = memchr(p, '\n', s + len - p);
            if (!e) e = s + len;
            if (!strncmp(p, "#define ", 8) && e - p < 60) fprintf(stderr, " %.*s;", (int)(e - p - 8), p + 8);
            p = e + 1;
        }
    }
    fprintf(stderr, "\n");
    return real(c, count, strings, lengths, err);
}
