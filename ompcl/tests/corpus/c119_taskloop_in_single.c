/* ompcl-test: offload=some warn="'taskloop' is not OpenMP 2.0" */
#include <stdio.h>
#include <omp.h>
/* `parallel` + `single` (or `master`) + `taskloop`: the team runs the loop's iterations as tasks
   and the region waits for them, so the iterations become a kernel's work-items (the task
   scheduling clauses change no result); also in a target region */
#define N 1000
int main(void) {
    int a[N], b[N], i, s_val = 0, total = 0;
    long sum = 0;
    for (i = 0; i < N; i++) { a[i] = i % 17; b[i] = 0; }
#pragma omp parallel
    {
#pragma omp single
#pragma omp taskloop grainsize(10) firstprivate(total)
        for (i = 0; i < N; i++) {
            total = a[i] * 2;
            b[i] = total + 1;
        }
    }
    for (i = 0; i < N; i++) sum += b[i] * (i % 5 + 1);
    printf("taskloop %ld\n", sum);
#pragma omp parallel shared(s_val)
#pragma omp master
#pragma omp taskloop num_tasks(4) shared(s_val)
    for (i = 0; i < N; i++) {
#pragma omp atomic update
        ++s_val;
    }
    printf("master taskloop %d\n", s_val);
    /* in a region of several constructs: a kernel between host steps */
    int c[N];
#pragma omp parallel
    {
        int sv = 4;
#pragma omp single
#pragma omp taskloop simd shared(sv)
        for (i = 0; i < N; i++) c[i] = a[i] * sv;
#pragma omp barrier
#pragma omp single
        for (i = 0; i < N; i++) c[i] += 1;
    }
    sum = 0;
    for (i = 0; i < N; i++) sum += c[i] * (i % 3 + 1);
    printf("sequence taskloop %ld\n", sum);
    s_val = 0;
#pragma omp target map(tofrom: s_val, b) map(to: a)
    {
#pragma omp parallel
        {
#pragma omp single
#pragma omp taskloop shared(s_val)
            for (int k = 0; k < N; ++k) {
#pragma omp atomic update
                ++s_val;
                b[k] = a[k] * a[k];
            }
        }
    }
    sum = 0;
    for (i = 0; i < N; i++) sum += b[i];
    printf("target taskloop %d %ld\n", s_val, sum);
    return 0;
}
