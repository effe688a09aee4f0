/* ompcl-test: offload=all */
#include <stdio.h>
/* Reductions written by hand whose combine is a sum of accumulators times values the region does
 * not write (manual_reduction.rs, "Combines run once after the region"): the accumulators move
 * before the region, the loop reduces into them, the combine runs once after it. Mattson's pi
 * tutorial (critical and atomic), scaled and divided accumulators, two accumulators in one
 * combine, a max combined in the same critical section. The data make the sums exact (multiples
 * of powers of two) but pi's, which agree within the corpus's tolerance. */
#define N 1000
static long num_steps = 4096;
double step;
double a[N], b[N];
int ia[N];

int main(void) {
    int i;
    for (i = 0; i < N; i++) {
        a[i] = (i % 13) * 0.25;
        b[i] = (i % 7) * 0.5 - 1.0;
        ia[i] = (i * 7) % 29 - 10;
    }

    /* Mattson's pi, critical */
    double pi = 0.0;
    step = 1.0 / (double)num_steps;
#pragma omp parallel
    {
        double x, sum = 0.0;
#pragma omp for
        for (i = 0; i < num_steps; i++) {
            x = (i + 0.5) * step;
            sum += 4.0 / (1.0 + x * x);
        }
#pragma omp critical
        pi += sum * step;
    }
    printf("pi critical %.6f\n", pi);

    /* Mattson's pi, atomic */
    double pi2 = 0.0;
#pragma omp parallel private(i)
    {
        double sum = 0.0, x;
#pragma omp for
        for (i = 0; i < num_steps; i++) {
            x = (i + 0.5) * step;
            sum = sum + 4.0 / (1.0 + x * x);
        }
#pragma omp atomic
        pi2 += sum * step;
    }
    printf("pi atomic %.6f\n", pi2);

    /* divided, and subtracted scaled */
    double mean = 1.5, net = 100;
    int n = N;
#pragma omp parallel
    {
        double l = 0;
        double m = 0;
#pragma omp for
        for (int j = 0; j < N; j++) {
            l += a[j];
            m -= b[j];
        }
#pragma omp critical
        {
            mean = mean + l / n;
            net -= 2 * m;
        }
    }
    printf("mean %.6f net %.2f\n", mean, net);

    /* two accumulators in one combine; an integer one scaled; a max alongside */
    double total = 0, mx = -1e300;
    long icount = 5;
    int k = 3;
    double c2 = 0.25;
#pragma omp parallel
    {
        double sa = 0, sb = 0, lmax = -1e300;
        long c = 0;
#pragma omp for
        for (int j = 0; j < N; j++) {
            sa += a[j];
            sb += b[j] * a[j];
            if (b[j] > lmax) lmax = b[j];
            c += ia[j];
        }
#pragma omp critical
        {
            total += 0.5 * sa - c2 * sb / 2;
            if (lmax > mx) mx = lmax;
            icount = icount + k * c;
        }
    }
    printf("total %.4f mx %.2f icount %ld\n", total, mx, icount);
    return 0;
}
