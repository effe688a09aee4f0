/* ompcl-test: offload=all serial */
#include <stdio.h>
/* Parallel loops whose iterations accumulate into shared array elements indexed by an inner loop
 * (PolyBench's atax and bicg race this way): ompcl splits the loop and swaps the accumulation's
 * loops (interchange.rs), which computes exactly one thread's result, race-free, on the device.
 * Forms: atax (a row part before), bicg (row and column statements in one inner loop), an offset
 * subscript into a 2-D row, a loop of accumulations only, and `int` and `double` elements. The
 * last loop cannot be split (the inner bound depends on i) and stays as it is: its iterations
 * write disjoint elements, so it is no race. */
#define NX 37
#define NY 53
static float A[NX][NY], x[NY], y[NY], tmp[NX], s[NY], q[NX], r[NX], p[NY];
static double col[NY + 2], m2[3][NY + 1];
static int cnt[NY];
static float tri[NX][NX];

int main(void) {
    int i, j;
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) A[i][j] = (float)((i * 7 + j * 3) % 11) / 4.0f - 1.0f;
    for (j = 0; j < NY; j++) { x[j] = 1.0f + j / 8.0f; p[j] = 0.5f * (j % 5); }
    for (i = 0; i < NX; i++) r[i] = (float)(i % 4) - 1.5f;
    /* atax */
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < NY; i++) y[i] = 0;
#pragma omp for private(j)
        for (i = 0; i < NX; i++) {
            tmp[i] = 0;
            for (j = 0; j < NY; j++) tmp[i] = tmp[i] + A[i][j] * x[j];
            for (j = 0; j < NY; j++) y[j] = y[j] + A[i][j] * tmp[i];
        }
    }
    /* bicg */
    for (j = 0; j < NY; j++) s[j] = 0;
#pragma omp parallel for private(j)
    for (i = 0; i < NX; i++) {
        q[i] = 0;
        for (j = 0; j < NY; j++) {
            s[j] = s[j] + r[i] * A[i][j];
            q[i] = q[i] + A[i][j] * p[j];
        }
    }
    /* offset and 2-D subscripts, declared loop variables, several arrays in one parallel loop */
#pragma omp parallel for
    for (int a = 0; a < NX; a++) {
        for (int b = 0; b < NY; b++) col[b + 2] += A[a][b] * 0.5;
        for (int b = 0; b < NY; b++) m2[1][b + 1] = m2[1][b + 1] * 0.5 + A[a][b];
    }
    /* accumulations only: the parallel loop is replaced */
#pragma omp parallel for private(j)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) cnt[j] += (A[i][j] > 0.0f) ? i : -1;
    /* not split (the inner bound depends on i), not a race (row i's elements only) */
#pragma omp parallel for private(j)
    for (i = 0; i < NX; i++)
        for (j = 0; j <= i; j++) tri[i][j] += x[j] * r[i];
    double sum = 0;
    for (j = 0; j < NY; j++) sum += y[j] * (j + 1) + s[j] * 3 + col[j + 2] + m2[1][j + 1] * 2 + cnt[j];
    for (i = 0; i < NX; i++) sum += q[i] + tmp[i] + tri[i][i / 2];
    printf("%.6e %.6e %.6e %.6e %d %.6e %.6e\n", sum, y[NY - 1], s[3], col[NY + 1], cnt[7], m2[1][NY], q[NX / 2]);
    return 0;
}
