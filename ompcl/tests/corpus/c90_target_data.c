/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <stdlib.h>
/* OpenMP 4.5 device data environment: inside `target data` the arrays stay on the device across
   target regions (no copy back until the end or `target update from`); combined constructs,
   reductions, array sections of heap and stack arrays, enter/exit data */
#define N 4096
int main(void) {
    float a[N], b[N];
    float *c = malloc(N * sizeof(float));
    double s = 0;
    int i;
    for (i = 0; i < N; i++) { a[i] = (float)i; b[i] = (float)(N - i); c[i] = 0.0f; }
#pragma omp target data map(to: a, b[0:N]) map(tofrom: c[0:N])
    {
#pragma omp target teams distribute parallel for
        for (i = 0; i < N; i++) c[i] = a[i] * 2.0f + b[i];
        /* the host copy of c is not current inside the data region: no copy back yet */
#pragma omp target parallel for
        for (i = 0; i < N; i++) c[i] = c[i] + 1.0f;
#pragma omp target update from(c[0:N / 2])
        printf("after update: c[10]=%g\n", c[10]);
#pragma omp target teams distribute parallel for simd reduction(+: s) map(tofrom: s)
        for (i = 0; i < N; i++) s += c[i];
    }
    printf("s=%.1f c[0]=%g c[N-1]=%g\n", s, c[0], c[N - 1]);
    /* unstructured mapping */
    float *d = malloc(N * sizeof(float));
    for (i = 0; i < N; i++) d[i] = 1.0f;
#pragma omp target enter data map(to: d[0:N])
#pragma omp target teams distribute
    for (i = 0; i < N; i++) d[i] = d[i] + (float)(i % 7);
#pragma omp target exit data map(from: d[0:N])
    double t = 0;
    for (i = 0; i < N; i++) t += d[i];
    printf("t=%.1f\n", t);
    free(c);
    free(d);
    return 0;
}
