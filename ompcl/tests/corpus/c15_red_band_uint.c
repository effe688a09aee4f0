/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 10000, i;
    unsigned int r = 0xffffffffu;
    unsigned int *v = malloc(n * sizeof(unsigned int));
    for (i = 0; i < n; i++) v[i] = (unsigned int)(~(1u << (i % 29)) | (i == 3 ? 0 : 0x100));
#pragma omp parallel for reduction(&: r)
    for (i = 0; i < n; i++)
        r = r & v[i];
    printf("reduction(&) = %u\n", r);
    free(v);
    return 0;
}
