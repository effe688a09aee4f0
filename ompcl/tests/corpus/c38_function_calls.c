/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
static double poly(double x) { return 1.0 + x * (0.5 + x * 0.25); }
static double combine(const double *row, int n, double w) {
    double s = 0;
    int k;
    for (k = 0; k < n; k++) s += poly(row[k]) * w;
    return s;
}
static void store(double *dst, int idx, double v) { dst[idx] = v; }
int main(void) {
    int n = 512, m = 32, i;
    double *src = malloc(n * m * sizeof(double)), *dst = malloc(n * sizeof(double));
    for (i = 0; i < n * m; i++) src[i] = (i % 10) * 0.1;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double v = combine(src + i * m, m, 0.5);
        store(dst, i, v + clampi(i, 10, 100));
    }
    double s = 0;
    for (i = 0; i < n; i++) s += dst[i];
    printf("%.6g\n", s);
    return 0;
}
