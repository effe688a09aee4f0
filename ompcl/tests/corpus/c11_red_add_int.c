/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 100000, i;
    int r = 5;
    int *v = malloc(n * sizeof(int));
    for (i = 0; i < n; i++) v[i] = (int)((i * 7) % 23 - 11);
#pragma omp parallel for reduction(+: r)
    for (i = 0; i < n; i++)
        r = r + v[i];
    printf("reduction(+) = %d\n", r);
    free(v);
    return 0;
}
