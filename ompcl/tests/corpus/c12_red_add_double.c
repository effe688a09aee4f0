/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 100000, i;
    double r = 0.5;
    double *v = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) v[i] = (double)((i % 100) * 0.01);
#pragma omp parallel for reduction(+: r)
    for (i = 0; i < n; i++)
        r = r + v[i];
    printf("reduction(+) = %.6g\n", r);
    free(v);
    return 0;
}
