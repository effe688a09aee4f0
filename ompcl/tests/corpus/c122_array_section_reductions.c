/* ompcl-test: offload=all */
#include <stdio.h>
/* OpenMP 4.5 reductions over arrays: sections (`y[0:NY]`, `y[:4]`) and arrays named whole. Where
 * the reduction's updates are the statements of an inner loop over the array's index, ompcl splits
 * them off and swaps their loops (interchange.rs): the sums come out as one thread's, on the device.
 * The last loop's updates sit under an `if`, which the split does not take: each update is an
 * element's sum update, so it becomes an atomic one (atomic_reduction.rs) and that region is on the
 * device too (it ran its CPU version before). Values are exact in float. */
#define NX 40
#define NY 24
static float A[NX][NY], y[NY], y2[NY], rowsum[NX];
static long prodv[4] = {1, 1, 1, 1};

int main(void) {
    int i, j;
    int hist[8] = {0};
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) A[i][j] = (float)((i * 5 + j * 3) % 9) - 4.0f;
#pragma omp parallel for private(j) reduction(+: y[0:NY])
    for (i = 0; i < NX; i++) {
        rowsum[i] = 0;
        for (j = 0; j < NY; j++) rowsum[i] += A[i][j];
        for (j = 0; j < NY; j++) y[j] += A[i][j] * 0.25f;
    }
#pragma omp parallel for private(j) reduction(+: hist) reduction(*: prodv[:4])
    for (i = 0; i < NX; i++) {
        for (j = 0; j < 8; j++) hist[j] = hist[j] + ((i + j) % 3 == 0);
        for (j = 0; j < 4; j++) prodv[j] *= (i % 7 == j) ? 2 : 1;
    }
#pragma omp parallel for private(j) reduction(+: y2[:NY])
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            if (A[i][j] > 0) y2[j] += A[i][j];
    float t = 0;
    for (j = 0; j < NY; j++) t += y[j] * (j + 1) + y2[j] * 3;
    for (i = 0; i < NX; i++) t += rowsum[i];
    printf("%.2f %.2f %.2f %d %d %ld %ld\n", t, y[5], y2[NY - 1], hist[0], hist[7], prodv[0], prodv[3]);
    return 0;
}
