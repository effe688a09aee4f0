/* ompcl-test: offload=all spread="17:1 28:1 34:0 40:0 46:0" */
#include <stdio.h>
/* Assignments to array elements before a spread inner loop run once per outer iteration: allowed
 * where no (i, j) pair touches their elements (correlation's diagonal before a strict triangle, an
 * array of one element per row the inner loop never uses), else the nest keeps one work-item per
 * row: the inner loop reads the element, the triangle includes the diagonal, a scalar is set. */
#define M 61
#define N 45
static float data[N][M], corr[M][M], rowtag[M], sums[M][M], scale[M], incl[M][M], other[M][M];

int main(void) {
    int i, j, k;
    float last = 0;
    for (k = 0; k < N; k++)
        for (j = 0; j < M; j++) data[k][j] = (float)((k * 5 + j * 7) % 13) - 6.0f;
    /* correlation's nest */
#pragma omp parallel for private(j, k)
    for (i = 0; i < M - 1; i++) {
        corr[i][i] = 1.0f;
        for (j = i + 1; j < M; j++) {
            corr[i][j] = 0.0f;
            for (k = 0; k < N; k++) corr[i][j] += data[k][i] * data[k][j];
            corr[j][i] = corr[i][j];
        }
    }
    corr[M - 1][M - 1] = 1.0f;
    /* a per-row tag the inner loop never touches */
#pragma omp parallel for private(j)
    for (i = 0; i < M; i++) {
        rowtag[i] = i * 0.5f;
        for (j = 0; j < M; j++) sums[i][j] = data[i % N][j] * 2.0f + j;
    }
    /* the inner loop reads what the statement before it wrote: rows */
#pragma omp parallel for private(j)
    for (i = 0; i < M; i++) {
        scale[i] = data[i % N][i] + 1.0f;
        for (j = 0; j < M; j++) sums[i][j] += scale[i];
    }
    /* the diagonal inside the triangle (j from i): rows */
#pragma omp parallel for private(j)
    for (i = 0; i < M; i++) {
        incl[i][i] = -3.0f;
        for (j = i; j < M; j++) incl[i][j] += (float)(i + j);
    }
    /* a scalar set before the inner loop: rows */
#pragma omp parallel for private(j) lastprivate(last)
    for (i = 0; i < M; i++) {
        last = (float)i;
        for (j = 0; j < M; j++) other[i][j] = last + j;
    }
    double t = 0;
    for (i = 0; i < M; i++) {
        t += rowtag[i] + scale[i] * 3.0;
        for (j = 0; j < M; j++) t += corr[i][j] * 1.0 + sums[i][j] * 5.0 + incl[i][j] * 7.0 + other[i][j] * 11.0;
    }
    printf("%.3f %.3f %.3f\n", t, corr[4][50], last);
    return 0;
}
