/* ompcl-test: offload=none warn="nor a sum of accumulators run once after the region: at line 27, 'i' is not a value the region leaves unchanged" warn="at line 39, 'scale(step)' is not a value the region leaves unchanged" warn="the accumulator 's3' is used at line 53" warn="the initial value of 'm4' (lo) may differ before the region" warn="at line 87, 'b5' is not a value the region leaves unchanged" warn="'s6' does not start at 0" warn="the statement at line 117 is not 's += e'" */
#include <stdio.h>
/* Reductions written by hand whose combine is not one manual_reduction.rs runs after the region:
 * each stays on the CPU as written, its warning saying why, and gives gcc's result (with the
 * corpus's 4 threads): r1's combine reads the loop's index, r2's calls a function of the
 * program, s3 is read after its combine , m4 starts from a variable of the region, a5 * b5 is a
 * product of accumulators (each thread's product, not the product of the sums), s6 starts at 10
 * (each thread adds it), r7's max carries its index (not an accumulator of its own). */
#define N 1000
double a[N];
double step = 0.5;

double scale(double x) { return 2 * x; }

int main(void) {
    int i;
    for (i = 0; i < N; i++) a[i] = (i % 13) * 0.25;

    /* r1: the combine reads the loop's index */
    double t1 = 0;
#pragma omp parallel
    {
        double s1 = 0;
#pragma omp for
        for (i = 0; i < N; i++) s1 += a[i];
#pragma omp critical
        t1 += s1 * i;
    }
    printf("r1 %.2f\n", t1 > 0);

    /* r2: the combine calls a function of the program */
    double t2 = 0;
#pragma omp parallel
    {
        double s2 = 0;
#pragma omp for
        for (int j = 0; j < N; j++) s2 += a[j];
#pragma omp critical
        t2 += s2 * scale(step);
    }
    printf("r2 %.2f\n", t2);

    /* s3: read after its combine */
    double t3 = 0;
    int neg3 = 0;
#pragma omp parallel
    {
        double s3 = 0;
#pragma omp for
        for (int j = 0; j < N; j++) s3 += a[j];
#pragma omp critical
        t3 += s3 * step;
        if (s3 < 0) neg3 = 1;
    }
    printf("r3 %.2f %d\n", t3, neg3);

    /* m4: a max starting from a variable of the region */
    double t4 = 0, mx4 = -1;
#pragma omp parallel
    {
        double lo = -5;
        double s4 = 0, m4 = lo;
#pragma omp for
        for (int j = 0; j < N; j++) {
            s4 += a[j];
            if (a[j] > m4) m4 = a[j];
        }
#pragma omp critical
        {
            t4 += s4 * step;
            if (m4 > mx4) mx4 = m4;
        }
    }
    printf("r4 %.2f %.2f\n", t4, mx4);

    /* a5 * b5: a product of accumulators */
    int t5 = 0;
#pragma omp parallel
    {
        int a5 = 0, b5 = 0;
#pragma omp for
        for (int j = 0; j < N; j++) {
            a5 += j % 3 == 0;
            b5 += j % 5 == 0;
        }
#pragma omp critical
        t5 += a5 * b5;
    }
    printf("r5 %d\n", t5 > 0);

    /* s6: a sum starting at 10 */
    double t6 = 0;
#pragma omp parallel
    {
        double s6 = 10.0;
#pragma omp for
        for (int j = 0; j < N; j++) s6 += a[j];
#pragma omp critical
        t6 += s6 * step;
    }
    printf("r6 %.2f\n", t6);

    /* r7: a max with its index */
    double best = -1;
    int ibest = -1;
#pragma omp parallel
    {
        double m7 = -1;
        int i7 = -1;
#pragma omp for
        for (int j = 0; j < N; j++)
            if (a[j] > m7) {
                m7 = a[j];
                i7 = j;
            }
#pragma omp critical
        if (m7 > best || (m7 == best && i7 < ibest)) {
            best = m7;
            ibest = i7;
        }
    }
    printf("r7 %.2f %d\n", best, ibest);
    return 0;
}
