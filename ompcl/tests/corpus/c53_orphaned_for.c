/* ompcl-test: offload=none warn="a statement outside any worksharing construct" */
#include <stdio.h>
#include <omp.h>
/* orphaned worksharing: the 'for' is in a function called inside the region (and outside) */
static void scale(double *v, int n, double f) {
    int i;
#pragma omp for
    for (i = 0; i < n; i++) v[i] *= f;
}
int main(void) {
    double v[1000];
    int i;
    for (i = 0; i < 1000; i++) v[i] = i;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < 1000; i++) v[i] += 1;
        scale(v, 1000, 2.0);
    }
    scale(v, 10, 0.5); /* outside any region: one thread runs it all */
    double s = 0;
    for (i = 0; i < 1000; i++) s += v[i];
    printf("%.6g %.6g\n", s, v[5]);
    return 0;
}
