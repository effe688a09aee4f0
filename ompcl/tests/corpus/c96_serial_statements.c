/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <math.h>
/* statements outside the worksharing loops of a `parallel` region, which every thread runs: when
   they only compute the region's own locals, the host runs them once between the kernels and the
   kernels take those locals as firstprivate (a serial loop, an `if`, declarations with
   initializers, math built-ins); also inside `target parallel` */
#define N 1000
double a[N], b[N], c[N], d[N];
int main(void) {
    int i;
    double total = 0;
    for (i = 0; i < N; i++) a[i] = i * 0.25;
#pragma omp parallel
    {
        int n2 = N / 2, j, m = 0;
        double scale = 1.5;
#pragma omp for
        for (i = 0; i < N; i++) {
            b[i] = a[i] * scale;
            for (j = 0; j < 3; j++) b[i] += j;
        }
        scale = scale * 2 + sqrt(4.0);
        if (n2 > 100)
            n2 -= 100;
        for (j = 0; j < 10; j++) m += j;
#pragma omp for
        for (i = 0; i < n2; i++) c[i] = b[i] + scale + m;
#pragma omp for reduction(+: total)
        for (i = 0; i < N; i++) total += c[i];
    }
    printf("total=%.3f b[7]=%.3f c[399]=%.3f c[400]=%.3f\n", total, b[7], c[399], c[400]);
#pragma omp target parallel map(to: a) map(from: d)
    {
        double off = 0.5;
        int half = N / 2;
        off = off * 4;
#pragma omp for
        for (i = 0; i < half; i++) d[i] = a[i] + off;
#pragma omp for
        for (i = half; i < N; i++) d[i] = a[i] - off;
    }
    printf("d[3]=%.3f d[997]=%.3f\n", d[3], d[997]);
    return 0;
}
