/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 200, i;
    long r = 0L;
    long *v = malloc(n * sizeof(long));
    for (i = 0; i < n; i++) v[i] = (long)(1L << ((i * 3) % 61));
#pragma omp parallel for reduction(|: r)
    for (i = 0; i < n; i++)
        r = r | v[i];
    printf("reduction(|) = %ld\n", r);
    free(v);
    return 0;
}
