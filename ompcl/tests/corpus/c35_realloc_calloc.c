/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 1000, i;
    int *a = calloc(n, sizeof(int));
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] += i;
    a = realloc(a, 2 * n * sizeof(int));
    for (i = n; i < 2 * n; i++) a[i] = 1;
#pragma omp parallel for
    for (i = 0; i < 2 * n; i++) a[i] *= 2;
    int *big = calloc(100000, sizeof(int));
#pragma omp parallel for
    for (i = 0; i < 100000; i++) big[i] += i % 3;
    big = realloc(big, 200000 * sizeof(int));
    for (i = 100000; i < 200000; i++) big[i] = 5;
#pragma omp parallel for
    for (i = 0; i < 200000; i++) big[i] += 1;
    long s = 0;
    for (i = 0; i < 2 * n; i++) s += a[i];
    for (i = 0; i < 200000; i++) s += big[i];
    printf("%ld\n", s);
    free(a);
    free(big);
    return 0;
}
