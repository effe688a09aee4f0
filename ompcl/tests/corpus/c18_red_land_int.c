/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 8000, i;
    int r = 1;
    int *v = malloc(n * sizeof(int));
    for (i = 0; i < n; i++) v[i] = (int)((i % 1000) != 999 || i < 5000);
#pragma omp parallel for reduction(&&: r)
    for (i = 0; i < n; i++)
        r = r && v[i];
    printf("reduction(&&) = %d\n", r);
    free(v);
    return 0;
}
