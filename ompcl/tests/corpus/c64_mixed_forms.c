/* ompcl-test: offload=some warn="variable-length array" */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
typedef double *dptr;
typedef struct { double re, im; } cplx;
#define AT(m, i, j, ld) ((m)[(i) * (ld) + (j)])
double bias = 0.5;
static cplx cmul(cplx a, cplx b) { cplx r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re }; return r; }
static void vla_scale(int n, double a[n][n]) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) a[i][j] *= 2;
}
int main(void) {
    size_t n = 3000, k;
    int ld = 10;
    dptr p = malloc(n * sizeof(double));
    cplx *z = malloc(n * sizeof(cplx));
    const float *restrict ro;
    float *rw = malloc(n * sizeof(float));
    double bias = 2.0; /* shadows the global */
    for (k = 0; k < n; k++) { z[k].re = k * 0.001; z[k].im = 1; rw[k] = k; }
    ro = rw;
#pragma omp parallel for default(none) shared(p, z, ro, n, ld, bias)
    for (k = 0; k < n; k++) {
        if (k % 5 == 0) { p[k] = -1; continue; }
        cplx w = cmul(z[k], z[k]);
        p[k] = w.re + w.im + AT(ro, k / ld, k % ld, ld) + bias;
    }
    unsigned int u;
    int *ev = calloc(n, sizeof(int));
#pragma omp parallel for
    for (u = 0; u <= 2000u; u += 2) ev[u] = (int)u;
    double m[20][20];
    int i, j;
    for (i = 0; i < 20; i++) for (j = 0; j < 20; j++) m[i][j] = i + j;
    vla_scale(20, m);
    double s = 0;
    long t = 0;
    for (k = 0; k < n; k++) { s += p[k]; t += ev[k]; }
    for (i = 0; i < 20; i++) for (j = 0; j < 20; j++) s += m[i][j];
    printf("%.6g %ld\n", s, t);
    return 0;
}
