/* ompcl-test: offload=all spread="21:1 29:1 37:1 46:1 50:0 54:0 61:0" */
#include <stdio.h>
#include <stdlib.h>
/* Triangular nests (the inner loop's first or last value follows the parallel loop's variable):
 * work-items take (i, j) pairs of the rectangle holding the triangle and skip the others. A
 * symmetric fill ([i][j] and [j][i]) spreads only when every pair lies on one side of the
 * diagonal. The last three nests keep one work-item per row: an inner loop counting down, one
 * reaching across the diagonal, a bound that is not i + c. Every result
 * must equal gcc -fopenmp's. Sizes that are not multiples of anything. */
#define M 77
#define N 53
static float data[N][M], sym[M][M], low[M][M], up[M * M], band[M][M], cross[M][M];

int main(void) {
    int i, j, k;
    for (k = 0; k < N; k++)
        for (j = 0; j < M; j++) data[k][j] = (float)((k * 7 + j * 3) % 11) - 5.0f;
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++) sym[i][j] = low[i][j] = band[i][j] = cross[i][j] = up[i * M + j] = -1.0f;
    /* covariance's nest: j from i, [i][j] and [j][i], the sum kept in place */
#pragma omp parallel for private(j, k)
    for (i = 0; i < M; i++)
        for (j = i; j < M; j++) {
            sym[i][j] = 0.0f;
            for (k = 0; k < N; k++) sym[i][j] += data[k][i] * data[k][j];
            sym[j][i] = sym[i][j];
        }
    /* the lower triangle, j up to and including i, written once */
#pragma omp parallel for private(j, k)
    for (i = 1; i < M; i++)
        for (j = 0; j <= i; j++) {
            float s = 0.0f;
            for (k = 0; k < N; k++) s += data[k][i] - data[k][j];
            low[i][j] = s;
        }
    /* flat indexing, strictly above the diagonal, symmetric */
#pragma omp parallel for private(j, k)
    for (i = 0; i < M - 1; i++)
        for (j = i + 1; j < M; j++) {
            float s = 0.0f;
            for (k = 0; k < N; k++) s += data[k][i] * data[k][j] * 0.5f;
            up[i * M + j] = s;
            up[j * M + i] = -s;
        }
    /* strictly below, j < i - 2, a band left out */
#pragma omp parallel for private(j)
    for (i = 0; i < M; i++)
        for (j = 0; j < i - 2; j++) band[i][j] = data[i % N][j] + i;
    /* an upper triangle whose inner loop counts down */
#pragma omp parallel for private(j)
    for (i = 2; i <= M - 3; i++)
        for (j = M - 1; j >= i; j--) band[j][i] = (float)(i * 100 + j);
    /* across the diagonal (j from i - 1): [i][j] and [j][i] of two pairs meet, so no (i, j) pairs */
#pragma omp parallel for private(j)
    for (i = 1; i < M; i++)
        for (j = i - 1; j < M; j++) {
            cross[i][j] = (float)(i + 2 * j);
            cross[j][i] = (float)(i + 2 * j);
        }
    /* a bound that follows i but is not i + c: one work-item per row */
#pragma omp parallel for private(j)
    for (i = 0; i < M; i++)
        for (j = 0; j < i / 2; j++) low[j][i] = (float)(j - i);
    double t = 0;
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            t += sym[i][j] * 1.0 + low[i][j] * 3.0 + up[i * M + j] * 5.0 + band[i][j] * 7.0 + cross[i][j] * 11.0;
    printf("%.3f %.3f %.3f %.3f\n", t, sym[3][70], up[5 * M + 60], band[70][4]);
    return 0;
}
