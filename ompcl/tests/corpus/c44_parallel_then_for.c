/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 4000, i;
    double *a = malloc(n * sizeof(double));
    double s = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+: s) schedule(static)
        for (i = 0; i < n; i++) {
            a[i] = i * 0.5;
            s += a[i];
        }
    }
    printf("%.6g %.6g\n", s, a[n - 1]);
    return 0;
}
