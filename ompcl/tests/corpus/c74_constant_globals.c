/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* read-only global arrays used by offloaded loops, directly or in functions they call, are
   __constant kernel parameters; a global array the device writes stays __global */
static const double coef[5] = {0.5, -1.25, 2.0, 0.125, 3.5};
float table[64] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597};
int weights[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
double out_g[1000];

static float lookup(int k) { return table[k & 63] * 0.5f; }

static double poly(double x) {
    double r = 0;
    for (int k = 4; k >= 0; k--) r = r * x + coef[k];
    return r;
}

int main(void) {
    int n = 1000, i;
    double *y = malloc(n * sizeof(double));
    for (i = 16; i < 64; i++) table[i] = (float)(i * 3 % 17); /* host writes before the first kernel */
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double x = (i % 37) * 0.03125;
        y[i] = poly(x) + lookup(i) + weights[i & 1][i & 3];
        out_g[i] = coef[i % 5] * x;
    }
    double s = 0, t = 0;
    for (i = 0; i < n; i++) { s += y[i]; t += out_g[i]; }
    printf("%.6f %.6f\n", s, t);
    table[3] = 100; /* a host write between kernels: the constant copy is re-sent */
#pragma omp parallel for
    for (i = 0; i < n; i++) y[i] = lookup(i) + coef[i % 5];
    s = 0;
    for (i = 0; i < n; i++) s += y[i];
    printf("%.6f\n", s);
    free(y);
    return 0;
}
