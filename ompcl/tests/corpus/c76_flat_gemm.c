/* ompcl-test: offload=all spread="11:1 22:1" */
/* gemm as plain OpenMP 2.0 code writes it: flat indexing, a local accumulator, no collapse. Each
   (i, j) writes its own element of C (C[i*n + j], n >= the inner trip count at run time), so
   work-items take (i, j) pairs. gemm2 writes the same element as C[j + i*ld] and C[(i)*(ld)+(j)];
   called with C == A it must keep each row in one work-item, in order (the no-alias check). */
#include <stdio.h>
#include <stdlib.h>

static void gemm(int n, float alpha, float beta, float *C, const float *A, const float *B) {
    int i, j, k;
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float c = C[i * n + j] * beta;
            for (k = 0; k < n; k++) c += alpha * A[i * n + k] * B[k * n + j];
            C[i * n + j] = c;
        }
}

static void gemm2(int n, int ld, double *C, const double *A, const double *B) {
    int i, j, k;
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            C[j + i * ld] = 0.25;
            for (k = 0; k < n; k++) C[(i) * (ld) + (j)] += A[i * ld + k] * B[k * ld + j];
        }
}

int main(void) {
    int n = 70, i;
    float *A = malloc(n * n * sizeof(float)), *B = malloc(n * n * sizeof(float)), *C = malloc(n * n * sizeof(float));
    double *X = malloc(n * n * sizeof(double)), *Y = malloc(n * n * sizeof(double)), *Z = malloc(n * n * sizeof(double));
    for (i = 0; i < n * n; i++) {
        A[i] = (float)((i * 7) % 13) / 13.0f;
        B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        C[i] = (float)(i % 17);
        X[i] = ((i * 3) % 19) / 19.0;
        Y[i] = ((i * 11) % 23) / 23.0 - 0.5;
        Z[i] = 0;
    }
    gemm(n, 1.5f, 0.5f, C, A, B); /* (i, j) pairs */
    gemm2(n, n, Z, X, Y);         /* (i, j) pairs */
    gemm2(n, n, X, X, Y);         /* C == A: whole rows */
    double s = 0, t = 0, u = 0;
    for (i = 0; i < n * n; i++) {
        s += C[i] * (i % 5);
        t += Z[i] * (i % 7);
        u += X[i] * (i % 3);
    }
    printf("%.6e %.6e %.6e %.6e %.6e\n", s, t, u, (double)C[n + 3], X[n * n - 2]);
    free(A); free(B); free(C); free(X); free(Y); free(Z);
    return 0;
}
