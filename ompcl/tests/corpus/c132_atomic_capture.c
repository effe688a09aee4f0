/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* `atomic capture` in kernels (SOLLVE's target_teams_distribute_nowait takes tickets with
 * `my_ticket = ticket[0]++`): the update is an OpenCL atomic that returns the value it found, and
 * the captured variable gets that value or the one the update made. Forms: `v = x++`, `v = ++x`,
 * `v = x--`, `v = x += e`, `v = x *= e` (a compare-and-swap loop), the blocks `{ v = x; x op= e; }`
 * and `{ x op= e; v = x; }`; int, unsigned, long and double; a shared scalar, an array element, a
 * private `x` (a plain statement). Every value captured is checked to be distinct or in range,
 * which only an atomic capture guarantees; the program prints the counts. */
#define N 512
int main(void) {
    int ticket[1] = {0}, seen[N] = {0}, i;
    unsigned u = 1000;
    long lcount = 0;
    double d = 0;
    int dup = 0, badu = 0, badl = 0, badd = 0, prv = 0;
    int got[N];
    long lg[N];
#pragma omp target teams distribute parallel for map(tofrom: ticket, got)
    for (i = 0; i < N; i++) {
        int my;
#pragma omp atomic capture
        my = ticket[0]++;
        got[i] = my;
    }
    for (i = 0; i < N; i++) {
        if (got[i] < 0 || got[i] >= N || seen[got[i]]) dup++;
        else seen[got[i]] = 1;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        unsigned a, b;
        long c;
        double e;
        int q = i, r;
#pragma omp atomic capture
        a = --u;
#pragma omp atomic capture
        {
            b = u;
            u += 2;
        }
#pragma omp atomic capture
        {
            lcount += 3;
            c = lcount;
        }
#pragma omp atomic capture
        e = d += 0.5;
#pragma omp atomic capture
        r = q--; /* a private x: a plain statement */
        lg[i] = c;
        if (a < 1000 - N || b < 1000 - N) badu++;
        if (c % 3 != 0 || c < 3 || c > 3L * N) badl++;
        if (e <= 0 || e > N * 0.5) badd++;
        if (r != i || q != i - 1) prv++;
    }
    long lsum = 0;
    for (i = 0; i < N; i++) lsum += lg[i];
    double prod = 1;
    int k;
#pragma omp parallel for
    for (k = 0; k < 10; k++) {
        double before;
#pragma omp atomic capture
        before = prod *= 2;
        if (before < 2) badd++;
    }
    printf("%d %d %u %ld %g %d %d %d %d %ld %g\n", ticket[0], dup, u, lcount, d, badu, badl, badd, prv, lsum,
           prod);
    return 0;
}
