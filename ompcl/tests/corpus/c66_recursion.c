/* ompcl-test: offload=some warn="recursive function 'fact'" */
#include <stdio.h>
#include <stdlib.h>
static long fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }
static long sq(long x) { return x * x; }
int main(void) {
    int n = 20, i;
    long *a = malloc(n * sizeof(long)), *b = malloc(n * sizeof(long));
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = fact(i % 15);
#pragma omp parallel for
    for (i = 0; i < n; i++) b[i] = sq(a[i] % 100000);
    long s = 0;
    for (i = 0; i < n; i++) s += a[i] % 1000 + b[i];
    printf("%ld\n", s);
    return 0;
}
