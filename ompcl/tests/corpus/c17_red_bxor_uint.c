/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 77777, i;
    unsigned int r = 0x55u;
    unsigned int *v = malloc(n * sizeof(unsigned int));
    for (i = 0; i < n; i++) v[i] = (unsigned int)((unsigned)i * 2654435761u);
#pragma omp parallel for reduction(^: r)
    for (i = 0; i < n; i++)
        r = r ^ v[i];
    printf("reduction(^) = %u\n", r);
    free(v);
    return 0;
}
