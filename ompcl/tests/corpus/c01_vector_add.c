/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 100000, i;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
    for (i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i + 1; }
#pragma omp parallel for
    for (i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    long s = 0;
    for (i = 0; i < n; i++) s += c[i] * (long)(i % 5);
    printf("%ld %d %d\n", s, c[0], c[n - 1]);
    free(a); free(b); free(c);
    return 0;
}
