/* Loads PTX files with the raw CUDA driver, in order, in the device's primary context, and looks
 * up every .entry of each: whether the driver itself accepts ptxgen's PTX (the CTS's basic
 * parameter_types got CUDA_ERROR_NOT_FOUND from cuModuleGetFunction through cudacl at vector size
 * 2). The modules are unloaded one by one, as the CTS releases each program before the next.
 *   ptx-load-probe FILE.ptx...        (cc ptx-load-probe.c -o ptx-load-probe -ldl)
 * Prints one line per module: file, load result, then entry:result for each entry. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fn_t)();
static fn_t sym(void *h, const char *n) {
    fn_t f = (fn_t)dlsym(h, n);
    if (!f) { printf("ptx-load-probe: libcuda lacks %s\n", n); exit(2); }
    return f;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { printf("ptx-load-probe: no libcuda.so.1\n"); return 2; }
    fn_t init = sym(h, "cuInit"), get = sym(h, "cuDeviceGet"), retain = sym(h, "cuDevicePrimaryCtxRetain"),
         set = sym(h, "cuCtxSetCurrent"), load = sym(h, "cuModuleLoadDataEx"), getfn = sym(h, "cuModuleGetFunction"),
         unload = sym(h, "cuModuleUnload");
    int dev = 0, r = init(0);
    void *ctx = NULL;
    if (!r) r = get(&dev, 0);
    if (!r) r = retain(&ctx, dev);
    if (!r) r = set(ctx);
    if (r) { printf("ptx-load-probe: context setup failed: %d\n", r); return 2; }
    int bad = 0;
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) { printf("%s: cannot open\n", argv[a]); bad++; continue; }
        static char text[1 << 22];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        static char log[1 << 14];
        log[0] = 0;
        int opts[2] = {5 /* CU_JIT_ERROR_LOG_BUFFER */, 6 /* ..._SIZE_BYTES */};
        void *vals[2] = {log, (void *)(size_t)sizeof log};
        void *mod = NULL;
        r = load(&mod, text, 2, opts, vals);
        printf("%s: load %d%s%s", argv[a], r, log[0] ? " log: " : "", log);
        if (r) { bad++; printf("\n"); continue; }
        for (char *p = text; (p = strstr(p, ".entry ")); p++) {
            char name[256];
            if (sscanf(p + 7, "%255[A-Za-z0-9_$]", name) != 1) continue;
            void *fn = NULL;
            int g = getfn(&fn, mod, name);
            printf(" %s:%d", name, g);
            bad += g != 0;
        }
        printf(" unload %d\n", unload(mod));
    }
    printf("ptx-load-probe: %d modules, %d problems\n", argc - 1, bad);
    return bad != 0;
}
