/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 50000, i;
    int r = 1000;
    int *v = malloc(n * sizeof(int));
    for (i = 0; i < n; i++) v[i] = (int)(i % 10);
#pragma omp parallel for reduction(-: r)
    for (i = 0; i < n; i++)
        r -= v[i];
    printf("reduction(-) = %d\n", r);
    free(v);
    return 0;
}
