/* ompcl-test: offload=all spread="13:0 20:1 27:0 41:0" */
/* Inner loops whose iterations are NOT independent: work-items must keep whole rows, in order.
   chain: X[i*m + j] reads X[i*m + j - 1] (refused at translation); stride: the written element
   Y[i*m + j*s] is the same for every j when s == 0 at run time (the run-time check refuses it;
   with s == 1 the pairs are fine); local_ptr: a pointer declared in the inner loop's body reads
   the element the previous iteration wrote; local_tmp: a pointer into a local array reads what the
   previous iteration wrote through the array (the run-time alias check must see the overlap). */
#include <stdio.h>
#include <stdlib.h>

static void chain(int n, int m, double *X) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 1; j < m; j++) X[i * m + j] = X[i * m + j - 1] * 0.5 + j;
}

static void stride(int n, int m, int s, double *Y) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) Y[i * m + j * s] = Y[i * m + j * s] * 0.5 + j;
}

static void local_ptr(int n, int m, double *Z) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 1; j < m; j++) {
            double *p = Z + i * m;
            p[j] = p[j - 1] * 0.5 + j;
        }
}

/* a local array and a pointer into it: the run-time alias check must see that they overlap */
static double local_tmp(void) {
    double loc[20 * 20];
    double *p = loc + 1;
    int i, j;
    for (i = 0; i < 20 * 20; i++) loc[i] = i % 7;
#pragma omp parallel for private(j)
    for (i = 0; i < 20; i++)
        for (j = 1; j < 20; j++) loc[i * 20 + j] = p[i * 20 + j - 2] * 0.5 + 1;
    double s = 0;
    for (i = 0; i < 20 * 20; i++) s += loc[i] * (i % 3);
    return s;
}

int main(void) {
    int n = 60, m = 90, i;
    double *X = malloc(n * m * sizeof(double)), *Y = malloc(n * m * sizeof(double));
    double *Z = malloc(n * m * sizeof(double)), *W = malloc(n * m * sizeof(double));
    for (i = 0; i < n * m; i++) X[i] = Y[i] = Z[i] = W[i] = (i * 7) % 11;
    chain(n, m, X);
    stride(n, m, 0, Y);
    stride(n, m, 1, W);
    local_ptr(n, m, Z);
    double s = 0, t = 0, u = 0, v = 0;
    for (i = 0; i < n * m; i++) {
        s += X[i] * (i % 5);
        t += Y[i] * (i % 7);
        u += Z[i] * (i % 3);
        v += W[i] * (i % 4);
    }
    printf("%.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", s, t, u, v, X[m - 1], Y[m], local_tmp());
    free(X); free(Y); free(Z); free(W);
    return 0;
}
