/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 4096, i;
    void *raw = malloc(n * sizeof(double));
    float *out = malloc(n * sizeof(float));
    double *d = (double *)raw;
    for (i = 0; i < n; i++) d[i] = i * 0.25;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        const double *p = (const double *)d + i;
        float *q = (float *)out;
        q[i] = (float)(*p * 2.0);
    }
    double s = 0;
    for (i = 0; i < n; i++) s += out[i];
    printf("%.6g\n", s);
    return 0;
}
