/* ompcl-test: offload=all (two loops, nowait: a sequence of two kernels) */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 1000, i;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
#pragma omp parallel
    {
#pragma omp for nowait
        for (i = 0; i < n; i++) a[i] = i;
#pragma omp for
        for (i = 0; i < n; i++) b[i] = 2 * i;
    }
    long s = 0;
    for (i = 0; i < n; i++) s += a[i] + b[i];
    printf("%ld\n", s);
    return 0;
}
