/* Placement (OMPCL_PROFILE's "placement:" lines): region 0 is light (one add per element) over a
 * fresh 8 MiB array that would first have to cross to the device: it runs on the CPU. Region 1 loops
 * in every work-item: the device. Region 2 is light again, but its data is on the device now (region
 * 1 used it, the host did not change it): the device. */
#include <stdio.h>
#include <stdlib.h>
#define N (1 << 20)
int main(void) {
    int i, j;
    double *a = malloc(N * sizeof(double));
    double *b = malloc(N * sizeof(double));
    for (i = 0; i < N; i++) a[i] = (i % 13) * 0.5;
    double s = 0;
#pragma omp parallel for reduction(+: s)
    for (i = 0; i < N; i++) s += a[i];
#pragma omp parallel for private(j)
    for (i = 0; i < N; i++) {
        double t = 0;
        for (j = 0; j < 4; j++) t += a[i] * j;
        b[i] = t;
    }
    double u = 0;
#pragma omp parallel for reduction(+: u)
    for (i = 0; i < N; i++) u += a[i] + b[i];
    printf("%.1f %.1f\n", s, u);
    free(a);
    free(b);
    return 0;
}
