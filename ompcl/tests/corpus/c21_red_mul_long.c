/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 3000, i;
    long r = 1L;
    long *v = malloc(n * sizeof(long));
    for (i = 0; i < n; i++) v[i] = (long)((i % 50 == 0) ? 2 : 1);
#pragma omp parallel for reduction(*: r)
    for (i = 0; i < n; i++)
        r = r * v[i];
    printf("reduction(*) = %ld\n", r);
    free(v);
    return 0;
}
