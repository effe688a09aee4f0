/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 2000, i, j;
    double t, *out = malloc(n * sizeof(double));
#pragma omp parallel for private(j, t)
    for (i = 0; i < n; i++) {
        t = 0;
        for (j = 0; j < 100; j++) t += (i + j) * 0.5;
        out[i] = t;
    }
    double s = 0;
    for (i = 0; i < n; i++) s += out[i];
    printf("%.6g %.6g\n", s, out[n / 2]);
    return 0;
}
