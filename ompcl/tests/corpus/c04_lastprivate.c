/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 1000, i;
    double x = -1;
    double *a = malloc(n * sizeof(double));
#pragma omp parallel for lastprivate(x, i)
    for (i = 0; i < n; i++) {
        x = i * 2.0 + 1;
        a[i] = x;
    }
    printf("x=%.6g i=%d a=%.6g\n", x, i, a[n - 1]);
    return 0;
}
