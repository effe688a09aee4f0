/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 20000, i;
    double s = 0.0;
    float *bins = calloc(8, sizeof(float));
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double v = (i % 13) * 0.25;
#pragma omp atomic
        s += v;
#pragma omp atomic
        bins[i % 8] += 0.5f;
    }
    printf("%.6g %.6g %.6g\n", s, bins[0], bins[7]);
    return 0;
}
