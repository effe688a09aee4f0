/* ompcl-test: offload=all */
#include <stdio.h>
#include <math.h>
#include <limits.h>
/* Reductions written by hand in the forms real code has (manual_reduction.rs), each offloaded as a
 * reduction clause on its loop: several accumulators of several types and operations in one
 * critical section; accumulators `private` on the region, set at its top; two loops, each with its
 * own combine (named critical, atomic); idempotent operations whose accumulators start from other
 * values than the identity (a variable outside the region, a constant above every element: the
 * value combined before the region decides the result); macros in the operands and the starting
 * values (SQR, INT_MIN, -INFINITY);
 * updates under if/else, switch and an inner loop, `++`/`--`, subtracted by the combine; a
 * collapse(2) loop; `if`/`default(none)` clauses; a region that is an `if`'s statement; an
 * accumulator declared together with a variable the loop reads; a function's local result.
 * Data: multiples of 0.25, so sums are exact in every order. */
#define N 2000
#define SQR(x) ((x) * (x))
double a[N], b[N];
float f[N];
int ia[N];

double dot(const double *x, const double *y, int n) {
    double r = 0.5;
#pragma omp parallel
    {
        double part = 0.0;
#pragma omp for schedule(static, 64)
        for (int i = 0; i < n; i++) part += x[i] * y[i];
#pragma omp critical
        r += part;
    }
    return r;
}

int main(void) {
    int i, n = N;
    for (i = 0; i < N; i++) {
        a[i] = (i % 23) * 0.25;
        b[i] = ((i * 5) % 7) * 0.5;
        f[i] = (float)((i * 3) % 19) * 0.25f;
        ia[i] = (i * 11) % 37;
    }

    /* several accumulators, one critical section */
    double sum = 0, mx = -1, mn = 1e9;
    int cnt = 0, allpos = 1;
    long isum = 5;
#pragma omp parallel
    {
        double ls = 0, lmx = -1e300, lmn = 1e300;
        int lc = 0, lp = 1;
        long li = 0;
#pragma omp for schedule(dynamic, 16) nowait
        for (int k = 0; k < N; k++) {
            ls += a[k];
            if (a[k] > lmx) lmx = a[k];
            lmn = a[k] < lmn ? a[k] : lmn;
            if (a[k] > 2.0) lc++;
            li = li + ia[k];
            lp = lp && (a[k] >= 0);
        }
#pragma omp critical
        {
            sum += ls;
            if (lmx > mx) mx = lmx;
            if (lmn < mn) mn = lmn;
            cnt += lc;
            isum = isum + li;
            allpos = allpos && lp;
        }
    }
    printf("several: %.2f %.2f %.2f %d %ld %d\n", sum, mx, mn, cnt, isum, allpos);

    /* private accumulators, set at the region's top */
    double tot = 1, t;
    int hits = 0, h;
#pragma omp parallel private(t, h)
    {
        t = 0;
        h = 0;
#pragma omp for
        for (i = 0; i < N; i++) {
            t += a[i] * b[i];
            if (b[i] > 1.0) h += 1;
        }
#pragma omp atomic
        tot += t;
#pragma omp atomic
        hits += h;
    }
    printf("private: %.2f %d\n", tot, hits);

    /* two loops, each followed by its own combine */
    double s1 = 0;
    long s2 = 0;
#pragma omp parallel
    {
        double l1 = 0;
        long l2 = 0;
#pragma omp for nowait
        for (int k = 0; k < N; k++) l1 += a[k] - b[k];
#pragma omp critical(first)
        s1 += l1;
#pragma omp for schedule(guided)
        for (int k = 0; k < N; k++) l2 += ia[k] * 2;
#pragma omp atomic
        s2 += l2;
    }
    printf("two loops: %.2f %ld\n", s1, s2);

    /* idempotent operations starting elsewhere than at the identity */
    int ilo = 1000, bits = 0x0F;
    double mx2 = -1;
    int imx2 = -1, any = 0, band = ~0;
#pragma omp parallel
    {
        double lm = 100.0;
        int li = ilo, la = 1, lb = bits;
#pragma omp for
        for (int k = 0; k < N; k++) {
            lm = fmax(lm, a[k]);
            if (ia[k] > li) li = ia[k];
            la = la || (a[k] > 1e9);
            lb &= ia[k] | 0x3;
        }
#pragma omp critical
        {
            mx2 = fmax(mx2, lm);
            if (li > imx2) imx2 = li;
            any = any || la;
            band &= lb;
        }
    }
    printf("idempotent: %.2f %d %d %d\n", mx2, imx2, any, band);

    /* macros in the operands and the starting values */
    int imx = 0;
    double sq = 0, dmx = -1;
#pragma omp parallel
    {
        int l = INT_MIN;
        double q = 0, m = -INFINITY;
#pragma omp for
        for (int k = 0; k < N; k++) {
            if (ia[k] > l) l = ia[k];
            q += SQR(a[k]);
            m = fmax(m, SQR(b[k]));
        }
#pragma omp critical
        {
            if (l > imx) imx = l;
            sq += q;
            dmx = fmax(dmx, m);
        }
    }
    printf("macros: %d %.2f %.2f\n", imx, sq, dmx);

    /* updates under if/else, switch and an inner loop; the combine subtracts */
    long countdown = 100000;
#pragma omp parallel
    {
        long c = 0;
#pragma omp for schedule(static)
        for (int k = 0; k < N; k++) {
            if (ia[k] % 3 == 0)
                c++;
            else if (ia[k] % 3 == 1) {
                c = c + 2;
            }
            for (int j = 0; j < 3; j++) c = 1 + c;
            switch (ia[k] & 1) {
            case 0:
                c--;
                break;
            default:
                c += 0;
            }
        }
#pragma omp critical
        countdown -= c;
    }
    printf("statements: %ld\n", countdown);

    /* collapse(2), with if and default(none) on the region */
    double grid = 0;
#pragma omp parallel if (n > 10) default(none) shared(a, b, grid)
    {
        double g = 0;
#pragma omp for collapse(2)
        for (int r = 0; r < 40; r++)
            for (int q = 0; q < 50; q++) g += a[r * 50 + q] * (q % 2 ? 1.0 : -1.0);
#pragma omp critical
        grid += g;
    }
    printf("collapse: %.2f\n", grid);

    /* the region is an if's statement (the value combined before it goes in braces with it) */
    float fmx = -100.0f;
    if (n > 0)
#pragma omp parallel
    {
        float lf = -1e30f;
#pragma omp for
        for (int k = 0; k < N; k++)
            if (f[k] > lf) lf = f[k];
#pragma omp critical
        if (lf > fmx) fmx = lf;
    }
    printf("if statement: %.2f\n", fmx);

    /* the accumulator declared with a variable the loop reads */
    double scaled = 0;
#pragma omp parallel
    {
        double ls = 0, scale = 0.5;
#pragma omp for
        for (int k = 0; k < N; k++) ls += a[k] * scale;
#pragma omp critical
        scaled += ls;
    }
    printf("declared together: %.2f\n", scaled);

    printf("function: %.2f\n", dot(a, b, N));
    return 0;
}
