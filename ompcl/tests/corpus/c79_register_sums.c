/* ompcl-test: offload=all spread="12:0 21:0" */
/* Row sums into shared elements (x[i] = x[i] + A[i*n + j] * y[j], as PolyBench's mvt and gesummv
   write them): one work-item per row, and the element stays in a register across the inner loop
   when no two pointers share memory. mv2 leaves its loop by `continue` and `break` (the register
   is still stored) and runs it zero times when m == 0 (nothing loaded). Called with x inside A's
   block (after the matrix), the kernels run the code as written. */
#include <stdio.h>
#include <stdlib.h>

static void mv(int n, int m, double *x, const double *A, const double *y) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++) {
        x[i] = x[i] * 0.5;
        for (j = 0; j < m; j++) x[i] = x[i] + A[i * n + j] * y[j];
    }
}

static void mv2(int n, int m, double *x, const double *A, const double *y) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            if (j % 3 == 1) continue;
            x[i] += A[i * n + j] * y[j];
            if (x[i] > 40.0 + i) break;
        }
}

int main(void) {
    int n = 300, i;
    double *A = malloc((n * n + n) * sizeof(double)), *x = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));
    for (i = 0; i < n * n + n; i++) A[i] = ((i * 7) % 13) / 13.0;
    for (i = 0; i < n; i++) {
        x[i] = i % 5;
        y[i] = ((i * 3) % 7) / 7.0;
    }
    double *xa = A + n * n; /* in A's block, after the matrix */
    mv(n, n, x, A, y);
    mv(n, n, xa, A, y);
    mv(n, 0, x, A, y);
    mv2(n, n, x, A, y);
    mv2(n, n, xa, A, y);
    double s = 0, t = 0;
    for (i = 0; i < n; i++) {
        s += x[i] * (i % 7);
        t += xa[i] * (i % 5);
    }
    printf("%.6f %.6f %.6f %.6f\n", s, t, x[n - 1], xa[3]);
    free(A); free(x); free(y);
    return 0;
}
