/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    unsigned int n = 5000, u;
    long m = 3000, l;
    unsigned long *a = malloc(n * sizeof(unsigned long));
    short *sh = malloc(m * sizeof(short));
#pragma omp parallel for
    for (u = 0; u < n; u++) a[u] = (unsigned long)u * 4000000007UL;
#pragma omp parallel for
    for (l = 0; l < m; l++) sh[l] = (short)(l * 13);
    unsigned long x = 0;
    long s = 0;
    for (u = 0; u < n; u++) x += a[u] >> 3;
    for (l = 0; l < m; l++) s += sh[l];
    printf("%lu %ld\n", x, s);
    return 0;
}
