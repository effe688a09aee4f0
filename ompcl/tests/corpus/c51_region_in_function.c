/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
static void axpy(int n, double alpha, const double *x, double *y) {
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++) y[i] += alpha * x[i];
}
static double dot(int n, const double *x, const double *y) {
    double s = 0;
    int i;
#pragma omp parallel for reduction(+: s)
    for (i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}
int main(void) {
    int n = 10000, i;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)), *z = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) { x[i] = i * 1e-3; y[i] = 1; z[i] = 2; }
    axpy(n, 2.0, x, y);
    axpy(n / 2, -1.0, y, z + n / 2);
    axpy(n, 0.5, z, x);
    printf("%.6g %.6g %.6g\n", dot(n, x, y), dot(n, y, z), dot(n / 3, z + 7, x + 11));
    return 0;
}
