/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 1000, i;
    int *a = calloc(n, sizeof(int));
#pragma omp parallel for
    for (i = n - 1; i >= 0; i--) a[i] += i;
#pragma omp parallel for
    for (i = 0; i <= n - 3; i += 3) a[i] += 1000;
#pragma omp parallel for
    for (i = n - 1; i > 10; i -= 7) a[i] -= 5;
#pragma omp parallel for
    for (int k = 2; k < n; k = k + 2) a[k] *= 2;
#pragma omp parallel for
    for (i = 5; 100 > i; ++i) a[i] = -a[i];
    long s = 0;
    for (i = 0; i < n; i++) s += (long)a[i] * (i % 13 + 1);
    printf("%ld\n", s);
    return 0;
}
