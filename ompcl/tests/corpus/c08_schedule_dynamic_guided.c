/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 5000, i;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
#pragma omp parallel for schedule(dynamic, 16)
    for (i = 0; i < n; i++) a[i] = i * 0.001;
#pragma omp parallel for schedule(guided)
    for (i = 0; i < n; i++) b[i] = a[i] * a[i];
    double s = 0;
    for (i = 0; i < n; i++) s += b[i];
    printf("%.6g\n", s);
    return 0;
}
