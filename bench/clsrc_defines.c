/* LD_PRELOAD shim (bench/clblast_sgemm.c): prints the "#define NAME <integer>" lines of every
 * program source an application creates, which is how CLBlast passes the tuning parameters it
 * picked from its database (KWG, MWG, VWM, ...), then calls the real clCreateProgramWithSource.
 * With CLSRC_DUMP=DIR it also writes each source to DIR/program-<n>.cl.
 * Build: cc -O2 -shared -fPIC -o clsrc_defines.so bench/clsrc_defines.c -ldl */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cl_program clCreateProgramWithSource(cl_context c, cl_uint count, const char **strings, const size_t *lengths,
                                     cl_int *err) {
    static cl_program (*real)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clCreateProgramWithSource");
    fprintf(stderr, "[clsrc] program:");
    for (cl_uint i = 0; i < count && strings; i++) {
        const char *s = strings[i];
        size_t len = lengths && lengths[i] ? lengths[i] : strlen(s);
        for (const char *p = s; p < s + len;) {
            const char *e = memchr(p, '\n', s + len - p);
            if (!e) e = s + len;
            /* "#define NAME 123": a name of capitals, digits and '_', then digits only. */
            const char *n = p + 8, *v;
            for (v = n; v < e && ((*v >= 'A' && *v <= 'Z') || (*v >= '0' && *v <= '9') || *v == '_'); v++) {}
            int numeric = v > n && v < e && *v == ' ' && v + 1 < e;
            for (const char *d = v + 1; numeric && d < e; d++) numeric = *d >= '0' && *d <= '9';
            if (!strncmp(p, "#define ", 8) && numeric) fprintf(stderr, " %.*s;", (int)(e - n), n);
            p = e + 1;
        }
    }
    fprintf(stderr, "\n");
    static int programs;
    const char *dir = getenv("CLSRC_DUMP");
    if (dir && strings) {
        char path[4096];
        snprintf(path, sizeof path, "%s/program-%d.cl", dir, programs++);
        FILE *f = fopen(path, "w");
        for (cl_uint i = 0; f && i < count; i++)
            fwrite(strings[i], 1, lengths && lengths[i] ? lengths[i] : strlen(strings[i]), f);
        if (f) fclose(f);
    }
    return real(c, count, strings, lengths, err);
}
