/* ompcl-test: offload=some warn="a data race in the program" */
/* A loop whose every iteration writes a shared array element at an index that does not depend on
   the loop variable races (PolyBench's atax and bicg do): on a GPU it gives wrong values, so ompcl
   keeps it on the CPU and says why. (Here the race is benign - every iteration stores the same
   values - so the output is deterministic; the element is read too: a loop that only stores into
   it runs on the device, c126.) Indexes computed from the loop variable, and writes under
   `atomic`, do not count. (A plain accumulation statement of an inner loop would be split off and
   interchanged instead, see c121; under an `if` it is not.) */
#include <stdio.h>
#define N 1000
int a[N], b[2 * N], seen[4], total[1];
int main(void) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < N; i++) {
        a[i] = i;
        for (j = 0; j < 4; j++)
            if (seen[j] == 0) seen[j] = 1; /* j does not depend on i: race */
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int k = 2 * i + 1; /* depends on i */
        b[k] = i;
        b[k - 1] = -i;
#pragma omp atomic
        total[0] += i;
    }
    long s = 0;
    for (i = 0; i < 2 * N; i++) s += b[i] * (i % 5);
    printf("%d %d %ld %d\n", a[N - 1], seen[3], s, total[0]);
    return 0;
}
