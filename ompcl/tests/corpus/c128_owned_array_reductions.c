/* ompcl-test: offload=some warn="array section" */
#include <stdio.h>
#include <stdlib.h>
/* Reductions over arrays whose elements the iterations own: every use of the array is an update of
 * the clause's operation at a subscript that is the parallel loop's variable (`tot[i] += ...`, as
 * SOLLVE's test_target_teams_distribute_parallel_for_reduction writes it). The private copies
 * would give what updating the original directly gives, so ompcl drops the item from the clause
 * (owned_reduction.rs) and the loop runs on the device, one element per work-item. Forms:
 * sections and whole arrays; `+=`, `y[i] = y[i] + e`, `*=`, `|=`, `-=` under `+`; int, long,
 * float, double and unsigned elements; a 2-D array's row `[i][k]`; a heap array by section;
 * `parallel for`, a `for` in a `parallel`, `target teams distribute parallel for` (mapped or not),
 * `target parallel for`. The last loop reads its element in a condition: not owned, not split,
 * so it runs on the CPU, saying why. Values are exact. */
#define N 48
#define M 20
static int A[N][M];
static int tot[N];
static long lt[N];
static float ft[N];
static double dt[N], row2[N][4];
static unsigned bits[N];

int main(void) {
    int i, j;
    long prod[N];
    double *hp = malloc(N * sizeof(double));
    for (i = 0; i < N; i++) {
        tot[i] = i;
        lt[i] = -i;
        ft[i] = 0.5f;
        dt[i] = 1;
        bits[i] = 0;
        prod[i] = 1;
        hp[i] = 100;
        for (j = 0; j < 4; j++) row2[i][j] = j;
        for (j = 0; j < M; j++) A[i][j] = (i * 7 + j * 3) % 10 - 4;
    }
#pragma omp parallel for private(j) reduction(+: tot[0:N])
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) tot[i] += A[i][j];
#pragma omp parallel private(j)
    {
#pragma omp for reduction(+: lt) reduction(*: prod[:N])
        for (i = 0; i < N; i++)
            for (j = 0; j < 3; j++) {
                lt[i] = lt[i] + A[i][j] * 1000000000L;
                prod[i] *= A[i][j] + 5;
            }
    }
#pragma omp target teams distribute parallel for reduction(+: ft[0:N], dt) private(j)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            ft[i] += A[i][j] * 0.25f;
            dt[i] -= A[i][j] * 0.5;
        }
#pragma omp target teams distribute parallel for map(tofrom: bits, row2) reduction(|: bits[0:N]) reduction(+: row2[0:N][0:4])
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            bits[i] |= 1u << (A[i][j] + 4);
            row2[i][j % 4] += A[i][j];
        }
#pragma omp target parallel for map(tofrom: hp[0:N]) reduction(+: hp[0:N]) private(j)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) hp[i] += A[i][j] * 0.125;
    for (i = 0; i < N; i += 5)
        printf("%d %ld %ld %g %g %u %g %g\n", tot[i], lt[i], prod[i], ft[i], dt[i], bits[i], row2[i][1], hp[i]);
    int hist[N] = {0};
#pragma omp parallel for private(j) reduction(+: hist[0:N])
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            if (hist[i] < 5) hist[i] += A[i][j] > 0;
    long s = 0;
    for (i = 0; i < N; i++) s += hist[i] * (i + 1);
    printf("%ld\n", s);
    free(hp);
    return 0;
}
