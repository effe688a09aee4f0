/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* CSR sparse matrix-vector product: index arrays and indirect access. */
int main(void) {
    int n = 3000, i, nnz = 0;
    int *rowptr = malloc((n + 1) * sizeof(int));
    int *col = malloc(n * 5 * sizeof(int));
    double *val = malloc(n * 5 * sizeof(double)), *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) {
        int k;
        rowptr[i] = nnz;
        for (k = 0; k < 1 + i % 5; k++) { col[nnz] = (i * 7 + k * 13) % n; val[nnz] = 1.0 / (k + 1); nnz++; }
        x[i] = (i % 17) - 8;
    }
    rowptr[n] = nnz;
#pragma omp parallel for schedule(dynamic, 32)
    for (i = 0; i < n; i++) {
        double s = 0;
        int k;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
    double t = 0;
    for (i = 0; i < n; i++) t += y[i] * (i % 4);
    printf("%d %.6g\n", nnz, t);
    return 0;
}
