/* ompcl-test: offload=some warn="'for' inside the loop is not translated to OpenCL" */
#include <stdio.h>
#include <omp.h>
/* A `parallel` region inside an iteration of an offloaded loop (SOLLVE's
 * test_target_teams_distribute_thread_limit: team 0 opens a `parallel` and records its size): the
 * region runs with one thread, the work-item itself (the device's dyn-var is true: a parallel
 * region may get fewer threads than it asks for; ompcl's CPU versions run nested regions with one
 * thread too), so `omp_get_thread_num()` is 0 and `omp_get_num_threads()` 1 inside it. Forms:
 * `target teams distribute` with `thread_limit`, a host `parallel for`, `num_threads` and `if`
 * clauses, an `atomic` inside, queries in conditions and in values; int and double. Sizes are
 * printed as "within the limit" (gcc's host fallback gives a team of several threads). A nested
 * `parallel` holding a worksharing `for` (its directive stacked on the `parallel`'s line, no
 * braces: OpenMP's nesting rules allow it, ompcl's check took the `for` for one closely nested in
 * the outer `parallel for`) keeps its region on the CPU, saying why. */
#define N 1024
int main(void) {
    int num_threads = -9, cnt = 0, x;
    double d[N];
    int inner[N];
#pragma omp target teams distribute thread_limit(4) map(from: num_threads) map(tofrom: cnt)
    for (x = 0; x < N; ++x) {
        if (omp_get_team_num() == 0) {
#pragma omp parallel
            {
                if (omp_get_thread_num() == 0) num_threads = omp_get_num_threads();
            }
        }
#pragma omp parallel num_threads(3) if(x > 10)
        {
            if (omp_get_thread_num() == 0) {
#pragma omp atomic
                cnt += 2;
            }
        }
    }
    printf("%d %d\n", num_threads >= 1 && num_threads <= 4, cnt);
#pragma omp parallel for
    for (x = 0; x < N; x++) {
        int t = 0;
#pragma omp parallel shared(t)
        {
            if (omp_get_thread_num() == 0) t = omp_get_num_threads();
        }
        d[x] = x * 0.5 + (t >= 1);
    }
    double s = 0;
    for (x = 0; x < N; x++) s += d[x];
    printf("%g\n", s);
#pragma omp parallel for
    for (x = 0; x < N; x++) {
        int k, acc = 0;
#pragma omp parallel num_threads(1)
#pragma omp for reduction(+: acc)
        for (k = 0; k < 4; k++) acc += k;
        inner[x] = acc + x;
    }
    long t2 = 0;
    for (x = 0; x < N; x++) t2 += inner[x];
    printf("%ld\n", t2);
    return 0;
}
