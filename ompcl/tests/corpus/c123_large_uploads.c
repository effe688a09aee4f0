/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* Arrays of several MiB and odd sizes: uploads that go in chunks where the runtime stages them
 * through pinned memory (rt_stage.c; the corpus test `staged_uploads` runs this with OMPCL_STAGE=1),
 * and blocks of 2 MiB and more placed on huge pages (rt_memory.c). */
#define N 2359301 /* 9 MiB + 20 bytes of float */
int main(void) {
    float *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    double *d = malloc(sizeof(double) * (N / 3));
    long i;
    for (i = 0; i < N; i++) { a[i] = (float)(i % 1000) * 0.5f; b[i] = (float)(i % 7); }
    for (i = 0; i < N / 3; i++) d[i] = (double)(i % 13) * 0.25;
#pragma omp parallel for
    for (i = 0; i < N; i++) y[i] = a[i] * 2.0f + b[i];
#pragma omp parallel for
    for (i = 0; i < N / 3; i++) d[i] = d[i] * 3.0 + a[3 * i];
    double s = 0, t = 0;
    for (i = 0; i < N; i++) s += y[i] * (double)(i % 3);
    for (i = 0; i < N / 3; i++) t += d[i];
    printf("%.6e %.6e %.3f %.3f\n", s, t, y[N - 1], d[N / 3 - 1]);
    free(a); free(b); free(y); free(d);
    return 0;
}
