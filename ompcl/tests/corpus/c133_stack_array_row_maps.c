/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <stdint.h>
/* Rows of a local (stack) array mapped one at a time (`map(alloc: ws[i][0:N])`, SOLLVE's
 * target_teams_distribute_nowait) while smaller local arrays just below it in the stack frame are
 * present (`target enter data`): the runtime registers the whole array the first time (kernels
 * address it from its start), but the block of the array below, ending exactly where this one
 * starts, was taken for a block holding its start, so only the row was registered, and from the
 * second row on the kernel's array argument pointed into no known memory: those launches ran on the
 * CPU, with a warning (rt_target.c). int64_t, int and double rows; `alloc` and `tofrom` maps. */
#define N 1024
#define T 12
int main(void) {
    int64_t ws[T][N];
    double dw[T][N / 4];
    int order[T], rows[T][N / 8];
    int ticket[1] = {0};
    int i;
    for (i = 0; i < T; i++) order[i] = -1;
#pragma omp target enter data map(to: ticket[0:1], order[0:T])
    for (i = 0; i < T; i++) {
#pragma omp target teams distribute parallel for map(alloc: ws[i][0:N]) map(tofrom: rows[i][0:N / 8], dw[i][0:N / 4])
        for (int j = 0; j < N; j++) {
            ws[i][j] = (int64_t)j * i;
            if (j < N / 8) rows[i][j] = (int)(ws[i][j] % 97);
            if (j < N / 4) dw[i][j] = j * 0.5 + i;
            if (j == 0) order[i] = i * 2;
        }
    }
#pragma omp target exit data map(from: ticket[0:1], order[0:T])
    long s = 0;
    double d = 0;
    for (i = 0; i < T; i++) {
        s += order[i];
        for (int j = 0; j < N / 8; j++) s += rows[i][j];
        for (int j = 0; j < N / 4; j++) d += dw[i][j];
    }
    printf("%ld %g %d\n", s, d, ticket[0]);
    return 0;
}
