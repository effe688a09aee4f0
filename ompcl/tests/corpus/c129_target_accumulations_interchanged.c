/* ompcl-test: offload=all serial warn="device constructs" */
#include <stdio.h>
#include <stdlib.h>
/* PolyBench's atax and bicg as a user writes them for a device (`target teams distribute parallel
 * for`, `target parallel for`): every iteration accumulates into `y[j]` through an inner loop,
 * racing as written (gcc's reference runs one thread), or under an array-section reduction. As for
 * `parallel for` (c121, c122), ompcl splits the loop and swaps the accumulation's loops
 * (interchange.rs); the construct's map clauses go to a `target data` around both loops, so
 * what the first loop writes (`tmp[i]`) stays on the device for the second. Forms: map clauses of
 * local arrays and heap sections, none at all, `device(0)`/`if(1)`/`num_teams`/`thread_limit`
 * carried to both loops, a loop of accumulations only, a reduction section that is not mapped, the
 * construct as the only statement of an `if`; float, double and int elements. */
#define NX 33
#define NY 45
static float A[NX][NY], x[NY], y[NY], tmp[NX];
static double B[NX][NY], p[NY], r[NX], s[NY], q[NX];

int main(void) {
    int i, j;
    int *cnt = malloc(NY * sizeof(int));
    double *hy = malloc(NY * sizeof(double));
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            A[i][j] = (float)((i * 5 + j * 3) % 9) - 4.0f;
            B[i][j] = ((i + 2 * j) % 7) * 0.5 - 1.0;
        }
    for (j = 0; j < NY; j++) {
        x[j] = (float)(j % 4);
        p[j] = (j % 3) * 0.25;
        y[j] = 0;
        s[j] = 0;
        cnt[j] = 0;
        hy[j] = 1;
    }
    for (i = 0; i < NX; i++) r[i] = (i % 5) - 2;
    /* atax */
#pragma omp target teams distribute parallel for map(to: A, x) map(tofrom: y, tmp) private(j)
    for (i = 0; i < NX; i++) {
        tmp[i] = 0;
        for (j = 0; j < NY; j++) tmp[i] = tmp[i] + A[i][j] * x[j];
        for (j = 0; j < NY; j++) y[j] = y[j] + A[i][j] * tmp[i];
    }
    /* bicg: both statements of one inner loop, clauses carried to both loops */
#pragma omp target teams distribute parallel for device(0) if(1) num_teams(8) thread_limit(64) map(to: B, p, r) map(tofrom: s, q) private(j)
    for (i = 0; i < NX; i++) {
        q[i] = 0;
        for (j = 0; j < NY; j++) {
            s[j] = s[j] + r[i] * B[i][j];
            q[i] = q[i] + B[i][j] * p[j];
        }
    }
    /* accumulations only, no map clauses (arrays mapped tofrom implicitly), int elements */
#pragma omp target parallel for private(j)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) cnt[j] += (int)A[i][j];
    /* a reduction over a heap section that no map clause names; the construct alone under an if */
    if (NX > 1)
#pragma omp target teams distribute parallel for reduction(+: hy[0:NY]) private(j)
        for (i = 0; i < NX; i++)
            for (j = 0; j < NY; j++) hy[j] -= B[i][j] * 0.5;
    for (j = 0; j < NY; j += 4) printf("%g %g %d %g\n", y[j], s[j], cnt[j], hy[j]);
    for (i = 0; i < NX; i += 4) printf("%g %g\n", tmp[i], q[i]);
    free(cnt);
    free(hy);
    return 0;
}
