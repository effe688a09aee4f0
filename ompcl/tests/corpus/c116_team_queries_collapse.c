/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* team and thread queries in collapsed loops: a league kernel over the flattened nest (each
   work-item takes the iterations the distribute and loop schedules give its team and thread).
   The variable of a loop inside the collapsed nest, declared before the region, is private (it
   was shared when the nest's innermost body is that loop itself: wrong sums, now and then) */
#define N 20
int a[N][N][N], b[N][N][N + 1], hit[N * N * N];
int main(void) {
    int x, y, z, nt = 0, nth = 0;
    long sum = 0;
    for (x = 0; x < N; x++)
        for (y = 0; y < N; y++) {
            b[x][y][0] = 0;
            for (z = 0; z < N; z++) { a[x][y][z] = x + 2 * y + 3 * z; b[x][y][z + 1] = 0; }
        }
#pragma omp target teams distribute map(to: a) map(tofrom: b, nt) collapse(2) num_teams(8)
    for (x = 0; x < N; x++)
        for (y = 0; y < N; y++)
            for (z = 0; z < N; z++) {
                if (omp_get_team_num() == 0) nt = omp_get_num_teams();
                b[x][y][z + 1] = b[x][y][z] + a[x][y][z];
            }
    for (x = 0; x < N; x++) for (y = 0; y < N; y++) sum += b[x][y][N] * (x + 1) + y;
    printf("collapse(2) %ld %d\n", sum, nt > 0);
#pragma omp target teams distribute parallel for collapse(3) map(tofrom: hit, nth) reduction(+: sum) thread_limit(64)
    for (x = 0; x < N; x++)
        for (y = 0; y < N; y++)
            for (z = 0; z < N; z++) {
                if (omp_get_thread_num() == 0 && omp_get_team_num() == 0) nth = omp_get_num_threads();
                hit[(x * N + y) * N + z] += 1 + (omp_get_team_num() < omp_get_num_teams());
                sum += x - y + z;
            }
    long h = 0;
    for (x = 0; x < N * N * N; x++) h += hit[x] * (x % 13 + 1);
    printf("collapse(3) %ld %ld %d\n", h, sum, nth > 0);
    /* no queries: a 2-D NDRange; the inner loop's variable, declared before the region, private */
    for (x = 0; x < N; x++) for (y = 0; y < N; y++) b[x][y][0] = x - y;
#pragma omp target teams distribute parallel for collapse(2) map(to: a) map(tofrom: b)
    for (x = 0; x < N; x++)
        for (y = 0; y < N; y++)
            for (z = 0; z < N; z++) b[x][y][z + 1] = b[x][y][z] * 3 % 1000 + a[x][y][z];
    sum = 0;
    for (x = 0; x < N; x++) for (y = 0; y < N; y++) for (z = 0; z <= N; z++) sum += b[x][y][z] * (z + 1);
    printf("collapse(2) plain %ld\n", sum);
    return 0;
}
