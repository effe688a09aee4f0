/* ompcl-test: offload=all spread="12:1 22:1 28:1 38:1" */
/* Independent (i, j) iterations written in other styles: a row pointer declared before the inner
   loop, *(p + i*m + j), a 2-D array with += from an inner loop, a column-major write (C[j*n + i]).
   Each is proven to write one element per (i, j), so work-items take (i, j) pairs. */
#include <stdio.h>
#include <stdlib.h>
#define M 50
static double G[40][M], X[40][M];

static void rows(int n, int m, double *C, const double *A) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++) {
        double *row = &C[i * m];
        const double *a = A + i * m;
        for (j = 0; j < m; j++) row[j] = 2 * a[j] + row[j] * 0.5;
    }
}

static void deref(int n, int m, double *C, const double *A) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) *(C + i * m + j) += *(A + j * n + i) - j;
}

static void twod(int n, int m, double X[][M]) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            G[i][j] *= 0.5;
            for (int k = 0; k <= j; k++) G[i][j] += X[i][k] * 0.25 + k;
        }
}

static void colmajor(int n, int m, double *C, const double *A) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) C[j * n + i] = A[i * m + j] * 3 - i;
}

int main(void) {
    int n = 40, m = M, i, j;
    double *A = malloc(n * m * sizeof(double)), *C = malloc(n * m * sizeof(double));
    double *D = malloc(n * m * sizeof(double));
    for (i = 0; i < n * m; i++) {
        A[i] = (i * 7) % 13;
        C[i] = (i * 3) % 5;
        D[i] = 0;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            X[i][j] = (i + 2 * j) % 9;
            G[i][j] = (i * j) % 4;
        }
    rows(n, m, C, A);
    deref(n, m, C, A);
    twod(n, m, X);
    colmajor(n, m, D, C);
    double s = 0, t = 0, u = 0;
    for (i = 0; i < n * m; i++) {
        s += C[i] * (i % 5);
        u += D[i] * (i % 7);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) t += G[i][j] * ((i + j) % 3);
    printf("%.4f %.4f %.4f %.4f %.4f\n", s, t, u, C[77], G[n - 1][m - 1]);
    free(A); free(C); free(D);
    return 0;
}
