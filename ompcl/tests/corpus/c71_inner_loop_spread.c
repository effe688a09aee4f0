/* ompcl-test: offload=all */
/* A parallel loop whose body is a loop with independent iterations (C[i][j] only): work-items take
   (i, j) pairs. When the two arrays are the same memory (a row reads what the same row wrote), the
   run-time alias check keeps each row in one work-item, in order, as the OpenMP program says. */
#include <stdio.h>
#define N 300
static double X[N][N], Y[N][N];
static void step(int n, double C[N][N], double A[N][N]) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) C[i][j] = A[i][(j + 1) % n] * 0.5 + i - j;
}
int main(void) {
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) X[i][j] = Y[i][j] = (i * 31 + j * 17) % 101;
    step(N, Y, X); /* distinct arrays: (i, j) work-items */
    step(N, X, X); /* aliased: rows */
    double s = 0, t = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            s += X[i][j] * ((i + 2 * j) % 7);
            t += Y[i][j] * ((i + 3 * j) % 5);
        }
    printf("%.4f %.4f %.4f %.4f\n", s, t, X[7][N - 1], Y[N - 1][3]);
    return 0;
}
