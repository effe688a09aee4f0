/* ompcl-test: offload=all */
#include <stdio.h>
#include <math.h>
/* max and min reductions in kernels (private copies start at the original value, partials
   finished on the host), and C math functions called with integers (fmin(int, int) converts to
   double in C; OpenCL's overloads alone would find it ambiguous) */
#define N 10007
int v[N];
double w[N];
int main(void) {
    int i, mx = -5, mn = 1 << 30, fm = 1 << 30;
    unsigned um = 3;
    long lm = 0;
    double dmx = -1e300, dmn = 1e300, sq = 0;
    for (i = 0; i < N; i++) {
        v[i] = (i * 7919) % 10007 - 5000;
        w[i] = ((i * 104729) % 1009) * 0.25 - 100;
    }
#pragma omp parallel for reduction(max: mx, dmx, um, lm) reduction(min: mn, dmn)
    for (i = 0; i < N; i++) {
        mx = mx > v[i] ? mx : v[i];
        mn = mn < v[i] ? mn : v[i];
        dmx = fmax(dmx, w[i]);
        dmn = fmin(dmn, w[i]);
        um = um > (unsigned)(v[i] + 5000) ? um : (unsigned)(v[i] + 5000);
        lm = lm > (long)v[i] * 3 ? lm : (long)v[i] * 3;
    }
#pragma omp parallel for reduction(min: fm) reduction(+: sq)
    for (i = 0; i < N; i++) {
        fm = fmin(fm, v[i] + i);
        sq += sqrt(i);
    }
    printf("%d %d %.2f %.2f %u %ld %d %.3f\n", mx, mn, dmx, dmn, um, lm, fm, sq);
    return 0;
}
