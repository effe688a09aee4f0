/* ompcl-test: offload=some runwarn="OpenCL build failed" */
#include <stdio.h>
#include <stdlib.h>
/* 'global' is a keyword of OpenCL C: the first kernel does not build and its region runs on the
   CPU; the file is then built region by region, so the second region still runs on OpenCL. */
static int twice(int x) { return 2 * x; }
int main(void) {
    int n = 1000, i;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        int global = i * 3;
        a[i] = global + 1;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) b[i] = twice(a[i]);
    long s = 0;
    for (i = 0; i < n; i++) s += a[i] + b[i];
    printf("%ld\n", s);
    return 0;
}
