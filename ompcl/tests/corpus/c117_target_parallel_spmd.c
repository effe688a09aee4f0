/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* `target parallel` whose body every thread runs (no worksharing inside): one work-group whose
   work-items are the team's threads (omp_get_thread_num = the local id) */
#define M 64
int main(void) {
    int nthr[M], ids[M], i, count = 0, bad = 0;
    long total = 0;
    double w[M];
    for (i = 0; i < M; i++) { nthr[i] = -1; ids[i] = -1; w[i] = 0; }
#pragma omp target parallel num_threads(8) map(tofrom: nthr, ids, count, total)
    {
        int me = omp_get_thread_num();
        nthr[me] = omp_get_num_threads();
        ids[me] = me * 10;
#pragma omp atomic
        count += 1;
#pragma omp atomic
        total += me;
    }
    int n = nthr[0];
    for (i = 0; i < n; i++) bad += nthr[i] != n || ids[i] != i * 10;
    for (i = n; i < M; i++) bad += nthr[i] != -1;
    printf("team: count matches %d, total matches %d, bad %d, n in range %d\n", count == n,
           total == (long)n * (n - 1) / 2, bad, n >= 1 && n <= 8);
    /* no num_threads: the team's size is the implementation's; every thread its own element */
    count = 0;
#pragma omp target parallel map(tofrom: w, count)
    {
        int me = omp_get_thread_num(), k;
        double acc = 0;
        for (k = 0; k <= me; k++) acc += k * 0.5;
        if (me < M) w[me] = acc;
#pragma omp atomic
        count++;
    }
    bad = 0;
    for (i = 0; i < M && i < count; i++) bad += w[i] != 0.25 * i * (i + 1);
    printf("default team: bad %d, some threads %d\n", bad, count >= 1);
    return 0;
}
