/* ompcl-test: offload=some warn="'update' is not OpenMP 2.0" warn="a reduction written by hand, but as a reduction clause the region stays on the CPU too: 'sections' inside 'parallel'" */
#include <stdio.h>
/* Reductions written by hand where the rewrite is not the whole story (manual_reduction.rs):
 * the combine is an `atomic update` (OpenMP 3.1: ompcl's CPU runtime lacks it, so the CPU
 * versions are gcc's OpenMP; the region still becomes a reduction kernel), and a region that also
 * holds a construct the translation does not take (`sections`): rewritten it would stay on the
 * CPU all the same, so it is left as written, its warning saying both. */
#define N 3000
double a[N];
long v[N];
int main(void) {
    for (int i = 0; i < N; i++) {
        a[i] = (i % 31) * 0.25;
        v[i] = (i * 13) % 101;
    }
    long total = 7;
#pragma omp parallel
    {
        long part = 0;
#pragma omp for schedule(dynamic, 32) nowait
        for (int i = 0; i < N; i++) part += v[i] * v[i];
#pragma omp atomic update
        total += part;
    }
    printf("atomic update: %ld\n", total);

    double sum = 0, first = 0, last = 0;
#pragma omp parallel
    {
        double loc = 0;
#pragma omp for
        for (int i = 0; i < N; i++) loc += a[i];
#pragma omp critical
        sum += loc;
#pragma omp sections
        {
#pragma omp section
            first = a[1];
#pragma omp section
            last = a[N - 1];
        }
    }
    printf("kept: %.2f %.2f %.2f\n", sum, first, last);
    return 0;
}
