/* ompcl-test: offload=some */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Results of kernels stay on the device until the host touches them (lazy copy-back). Every way the
 * host can reach them must see the kernel's values: plain reads and writes, a CPU region's threads
 * reading at once, memcpy, realloc, write(2) and fwrite (system calls, which take no fault), a
 * reduction into a global, a free of a block never read, a kernel reading what another wrote. */
#define N 300000
static double G[N];
static double total;
int main(void) {
    int i;
    double *a = malloc(N * sizeof(double));
    double *b = malloc(N * sizeof(double));
    double *never = malloc(N * sizeof(double));
    for (i = 0; i < N; i++) a[i] = i % 7;
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        b[i] = a[i] * 3 + 1;
        G[i] = a[i] - 2;
        never[i] = 5;
    }
    free(never); /* never read: never copied back */
    /* a kernel reading the other's results, still on the device */
#pragma omp parallel for reduction(+: total)
    for (i = 0; i < N; i++) {
        a[i] = b[i] + G[i];
        total += a[i];
    }
    printf("total %.1f\n", total);
    /* a CPU region (threads fault on the same pages at once): printf keeps it on the CPU */
    double s = 0;
#pragma omp parallel for reduction(+: s)
    for (i = 0; i < N; i++) {
        s += a[i] * (i % 3);
        if (i == N / 2) printf("middle %.1f\n", a[i]);
    }
    printf("cpu sum %.1f\n", s);
    /* system calls read the pages in the kernel: write(2) of b, fwrite of G */
    char name[64];
    snprintf(name, sizeof name, "/tmp/ompcl-c85-%d", (int)getpid());
    FILE *f = fopen(name, "wb+");
    if (!f) return 1;
    if (write(fileno(f), b, N * sizeof(double)) != (ssize_t)(N * sizeof(double))) printf("write failed\n");
    if (fwrite(G, sizeof(double), N, f) != N) printf("fwrite failed\n");
    fflush(f);
    rewind(f);
    double check = 0, v;
    for (i = 0; i < 2 * N; i++) {
        if (fread(&v, sizeof v, 1, f) != 1) break;
        check += v;
    }
    fclose(f);
    remove(name);
    printf("file sum %.1f\n", check);
    /* memcpy and realloc of device-newer blocks */
#pragma omp parallel for
    for (i = 0; i < N; i++) b[i] = b[i] * 2;
    double *c = malloc(N * sizeof(double));
    memcpy(c, b, N * sizeof(double));
#pragma omp parallel for
    for (i = 0; i < N; i++) a[i] = -a[i];
    a = realloc(a, 2 * N * sizeof(double));
    double t = 0;
    for (i = 0; i < N; i++) t += a[i] + c[i];
    /* a host write into a device-newer block, then a kernel reads it */
#pragma omp parallel for
    for (i = 0; i < N; i++) b[i] = 1;
    b[10] = 1000;
#pragma omp parallel for reduction(+: t)
    for (i = 0; i < N; i++) t += b[i];
    printf("final %.1f %.1f %.1f\n", t, b[10], b[N - 1]);
    free(a);
    free(b);
    free(c);
    return 0;
}
