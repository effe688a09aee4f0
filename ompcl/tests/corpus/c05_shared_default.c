/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 4096, i;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    double k = 0.25;
    for (i = 0; i < n; i++) a[i] = i;
#pragma omp parallel for default(shared) shared(a, b, k)
    for (i = 0; i < n; i++)
        b[i] = a[i] * k + a[(i + 1) % n];
    double s = 0;
    for (i = 0; i < n; i++) s += b[i];
    printf("%.6g\n", s);
    return 0;
}
