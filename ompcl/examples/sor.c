/* MOMP's successive over-relaxation (SOR): red-black Gauss-Seidel on a global grid.
 * Each sweep is a parallel region; the grid stays on the device between sweeps. */
#include <stdio.h>
#include <math.h>

#ifndef M
#define M 512
#endif
#ifndef ITERS
#define ITERS 50
#endif

double G[M][M];

int main(void) {
    int i, j, it;
    const double omega = 1.25;
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            G[i][j] = (i == 0 || j == 0 || i == M - 1 || j == M - 1) ? (double)((i + 2 * j) % 10) : 0.0;
    double resid = 0.0;
    for (it = 0; it < ITERS; it++) {
        int color;
        resid = 0.0;
        for (color = 0; color < 2; color++) {
#pragma omp parallel for private(j) reduction(+: resid)
            for (i = 1; i < M - 1; i++) {
                for (j = 1 + (i + color) % 2; j < M - 1; j += 2) {
                    double nv = 0.25 * (G[i - 1][j] + G[i + 1][j] + G[i][j - 1] + G[i][j + 1]);
                    double d = nv - G[i][j];
                    G[i][j] += omega * d;
                    resid += d * d;
                }
            }
        }
    }
    double sum = 0.0;
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            sum += G[i][j];
    printf("sor M=%d iters=%d sum %.6g resid %.4g\n", M, ITERS, sum, sqrt(resid));
    return 0;
}
