/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* The host refills an already-offloaded buffer with fread (a system call writes it). */
int main(void) {
    int n = 50000, i, it;
    int *a = malloc(n * sizeof(int));
    char path[] = "/tmp/ompcl_c49_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w+b");
    for (i = 0; i < n; i++) a[i] = i % 7;
    fwrite(a, sizeof(int), n, f);
    for (i = 0; i < n; i++) a[i] = 1;
    long total = 0;
    for (it = 0; it < 2; it++) {
        long s = 0;
#pragma omp parallel for reduction(+: s)
        for (i = 0; i < n; i++) s += a[i];
        total = total * 1000003 + s;
        rewind(f);
        if (fread(a, sizeof(int), n, f) != (size_t)n) printf("short read\n");
    }
    fclose(f);
    remove(path);
    printf("%ld\n", total);
    return 0;
}
