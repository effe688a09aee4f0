/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include "include/c67_helpers.h"
int main(void) {
    int n = 4000, i;
    double *out = malloc(n * sizeof(double));
    float *f = malloc(n * sizeof(float));
    double coef[4] = {1, 0.5, 0.25, 0.125};
    c67_range r = {-1.0f, 2.5f};
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double x = (i - n / 2) * 0.001;
        out[i] = c67_poly(coef, 4, x);
        f[i] = c67_clamp((float)x, r);
    }
    double s = 0;
    for (i = 0; i < n; i++) s += out[i] + f[i];
    printf("%.6g\n", s);
    return 0;
}
