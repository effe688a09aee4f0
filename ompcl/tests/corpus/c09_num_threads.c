/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 999, i;
    long *a = malloc(n * sizeof(long));
#pragma omp parallel for num_threads(3)
    for (i = 0; i < n; i++) a[i] = (long)i * i * i;
    long s = 0;
    for (i = 0; i < n; i++) s ^= a[i];
    printf("%ld\n", s);
    return 0;
}
