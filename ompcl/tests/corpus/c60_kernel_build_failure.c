/* ompcl-test: offload=none runwarn="OpenCL build failed" */
#include <stdio.h>
#include <stdlib.h>
/* 'global' is a keyword of OpenCL C: the kernel does not build, the region runs on the CPU. */
int main(void) {
    int n = 1000, i;
    int *a = malloc(n * sizeof(int));
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        int global = i * 3;
        a[i] = global + 1;
    }
    long s = 0;
    for (i = 0; i < n; i++) s += a[i];
    printf("%ld\n", s);
    return 0;
}
