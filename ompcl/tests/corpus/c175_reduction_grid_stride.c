/* ompcl-test: offload=all */
/* Reductions over many more iterations than a device runs work-items at once: each work-item
 * sums iterations a global size apart (OMPCL_HINT_STRIDE), so a work-item's private copy holds
 * many iterations before the work-group's tree. Every operation and type, unit and non-unit
 * steps, a decreasing loop, an iteration count that is no multiple of the global size, a loop
 * whose lower bound is not zero, and a body with 'continue'. */
#include <stdio.h>
#define N 1000003
int a[N];
double d[N];
float f[N];
int main(void) {
    long i;
    for (i = 0; i < N; i++) {
        a[i] = (int)((i * 2654435761u) % 1000) - 500;
        d[i] = (double)a[i] * 0.25;
        f[i] = (float)(i % 97) * 0.5f;
    }
    long s = 0, cnt = 0;
    double ds = 0, dmax = -1e300, dmin = 1e300;
    float fs = 0;
    int imax = -1000, imin = 1000, band = ~0, bor = 0, bxor = 0, all = 1, any = 0;
    unsigned long long prod = 1;
#pragma omp parallel for reduction(+ : s, ds) reduction(max : dmax, imax) reduction(min : dmin, imin)
    for (i = 0; i < N; i++) {
        s += a[i];
        ds += d[i];
        if (d[i] > dmax) dmax = d[i];
        if (d[i] < dmin) dmin = d[i];
        imax = a[i] > imax ? a[i] : imax;
        imin = a[i] < imin ? a[i] : imin;
    }
#pragma omp parallel for reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : all) reduction(|| : any)
    for (i = 7; i < N; i += 3) {
        band &= a[i] | 0x7ff0;
        bor |= a[i] & 0x0f0f;
        bxor ^= a[i];
        all = all && a[i] > -501;
        any = any || a[i] == 499;
    }
#pragma omp parallel for reduction(+ : fs, cnt)
    for (i = N - 1; i >= 0; i -= 2) {
        if (f[i] > 40.0f) continue;
        fs += f[i];
        cnt++;
    }
#pragma omp parallel for reduction(* : prod)
    for (i = 0; i < 200000; i++) prod *= (unsigned long long)(a[i] | 1);
    printf("s=%ld ds=%.4f dmax=%.2f dmin=%.2f imax=%d imin=%d\n", s, ds, dmax, dmin, imax, imin);
    printf("band=%d bor=%d bxor=%d all=%d any=%d\n", band, bor, bxor, all, any);
    printf("fs=%.1f cnt=%ld prod=%llu\n", (double)fs, cnt, prod);
    return 0;
}
