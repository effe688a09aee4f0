/* ompcl-test: offload=none warn="the accumulator 'r1' is used at line 34" warn="'r2' does not start at 0" warn="the shared variable 's3' is used at line 60" warn="the accumulator 'r4' is used at line 76" warn="the statement at line 91 (in 'critical') is not a combine" warn="'r6' is combined before its loop" warn="the accumulator 'r7' is used at line 115" warn="'r8' and 's8' are not of one arithmetic type" warn="'r9' is neither declared in the region nor private on it" warn="the address of 's10' is taken" warn="'r11' is updated in two loops" warn="'g12' is global and the region calls functions" warn="the initial value of 'r13' (base) may differ before the region" warn="'flush' at line 204 names 's14'" warn="'r15' (a floating max/min) does not start at a constant number" warn="'r16' (a floating max/min) does not start at a constant number" warn="the statement at line 240 (in 'critical') is not a combine" */
#include <stdio.h>
#include <math.h>
/* Regions that look like reductions written by hand but break one of manual_reduction.rs's rules:
 * each stays on the CPU as it is, its warning saying which rule, and gives gcc's result (with the
 * corpus's 4 threads). Rewritten, most would give another: r2's start counted once instead of per
 * thread, r3's loop reading the private copy of s3, r6's combine (before the loop, of the start
 * value) becoming the loop's, r7's update (not a max: the value assigned is not the one compared)
 * starting from another value, r13's start read where `base` does not exist yet, r15's NaN start
 * (which keeps it from ever changing) replaced by the clause's. */
#define N 1000
#define MAX(x, y) ((x) > (y) ? (x) : (y))
double a[N];
int ia[N];
double g12 = 0;

double twice(double x) { return 2 * x; }

int main(void) {
    for (int i = 0; i < N; i++) {
        a[i] = (i % 13) * 0.25;
        ia[i] = (i * 7) % 29;
    }

    /* r1: read in the loop, other than by its updates */
    double s1 = 0;
    int over = 0;
#pragma omp parallel
    {
        double r1 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) {
            r1 += a[i];
            if (r1 < 0) over = 1;
        }
#pragma omp critical
        s1 += r1;
    }
    printf("r1 %.2f %d\n", s1, over);

    /* r2: a sum that does not start at 0 (each thread adds 1) */
    double s2 = 0;
#pragma omp parallel
    {
        double r2 = 1;
#pragma omp for
        for (int i = 0; i < N; i++) r2 += a[i];
#pragma omp critical
        s2 += r2;
    }
    printf("r2 %.2f\n", s2);

    /* s3: the shared variable read in the loop (its value before the region: the loop's barrier
       comes before any combine) */
    double s3 = 1;
#pragma omp parallel
    {
        double r3 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r3 += a[i] + s3;
#pragma omp critical
        s3 += r3;
    }
    printf("r3 %.2f\n", s3);

    /* r4: used after the critical section */
    double s4 = 0;
    int neg = 0;
#pragma omp parallel
    {
        double r4 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r4 += a[i];
#pragma omp critical
        s4 += r4;
        if (r4 < 0) neg = 1;
    }
    printf("r4 %.2f %d\n", s4, neg);

    /* r5: a second statement in the critical section that is no combine */
    double s5 = 0;
    int n5 = 0;
#pragma omp parallel
    {
        double r5 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r5 += a[i];
#pragma omp critical
        {
            s5 += r5;
            n5++;
        }
    }
    printf("r5 %.2f %d\n", s5, n5);

    /* r6: combined before its loop (of the start value) */
    double s6 = 3;
#pragma omp parallel
    {
        double r6 = 0;
#pragma omp critical
        s6 += r6;
#pragma omp for
        for (int i = 0; i < N; i++) r6 += a[i];
    }
    printf("r6 %.2f\n", s6);

    /* r7: compares one value and assigns another (no max) */
    int s7 = -1;
#pragma omp parallel
    {
        int r7 = 0;
#pragma omp for
        for (int i = 0; i < N; i++)
            if (ia[i] > r7) r7 = ia[i] / 2;
#pragma omp critical
        if (r7 > s7) s7 = r7;
    }
    printf("r7 %d\n", s7);

    /* r8: an int accumulator combined into a long */
    long s8 = 0;
#pragma omp parallel
    {
        int r8 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r8 += ia[i];
#pragma omp critical
        s8 += r8;
    }
    printf("r8 %ld\n", s8);

    /* r9: firstprivate (it starts at the value outside) */
    double s9 = 0, r9 = 0;
#pragma omp parallel firstprivate(r9)
    {
#pragma omp for
        for (int i = 0; i < N; i++) r9 += a[i];
#pragma omp critical
        s9 += r9;
    }
    printf("r9 %.2f\n", s9);

    /* s10: its address is taken */
    double s10 = 0, *p10 = &s10;
#pragma omp parallel
    {
        double r10 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r10 += a[i];
#pragma omp critical
        s10 += r10;
    }
    printf("r10 %.2f %.2f\n", s10, *p10);

    /* r11: updated in two loops */
    double s11 = 0;
#pragma omp parallel
    {
        double r11 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r11 += a[i];
#pragma omp for
        for (int i = 0; i < N; i++) r11 += 2 * a[i];
#pragma omp critical
        s11 += r11;
    }
    printf("r11 %.2f\n", s11);

    /* g12: a global, and the loop calls a function of the program */
#pragma omp parallel
    {
        double r12 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r12 += twice(a[i]);
#pragma omp critical
        g12 += r12;
    }
    printf("r12 %.2f\n", g12);

    /* r13: a max starting from a variable of the region */
    double s13 = -1;
#pragma omp parallel
    {
        double base = 50;
        double r13 = base;
#pragma omp for
        for (int i = 0; i < N; i++)
            if (a[i] > r13) r13 = a[i];
#pragma omp critical
        if (r13 > s13) s13 = r13;
    }
    printf("r13 %.2f\n", s13);

    /* s14: named by a directive inside */
    double s14 = 0;
#pragma omp parallel
    {
        double r14 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r14 += a[i];
#pragma omp critical
        s14 += r14;
#pragma omp flush(s14)
    }
    printf("r14 %.2f\n", s14);

    /* r15: a floating max starting at NaN (it stays NaN: no element compares above it, and the
       combine never takes it); r16: one starting at a variable (which could hold a NaN) */
    double s15 = -1, s16 = -1, lo = 2;
#pragma omp parallel
    {
        double r15 = NAN;
#pragma omp for
        for (int i = 0; i < N; i++)
            if (a[i] > r15) r15 = a[i];
#pragma omp critical
        if (r15 > s15) s15 = r15;
    }
#pragma omp parallel
    {
        double r16 = lo;
#pragma omp for
        for (int i = 0; i < N; i++)
            if (a[i] > r16) r16 = a[i];
#pragma omp critical
        if (r16 > s16) s16 = r16;
    }
    printf("r15 %.2f r16 %.2f\n", s15, s16);

    /* r17: a max through a macro (its operators are not written out: libclang before 17 cannot
       read them, and the rewrite must not depend on the version) */
    int s17 = -1;
#pragma omp parallel
    {
        int r17 = 0;
#pragma omp for
        for (int i = 0; i < N; i++) r17 = MAX(r17, ia[i]);
#pragma omp critical
        s17 = MAX(s17, r17);
    }
    printf("r17 %d\n", s17);
    return 0;
}
