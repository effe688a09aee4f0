/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 20000, i;
    double r = 1.0;
    double *v = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) v[i] = (double)(1.0 + ((i % 7) - 3) * 1e-4);
#pragma omp parallel for reduction(*: r)
    for (i = 0; i < n; i++)
        r = r * v[i];
    printf("reduction(*) = %.6g\n", r);
    free(v);
    return 0;
}
