/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 10007, i;
    int *a = malloc(n * sizeof(int));
#pragma omp parallel for schedule(static, 4)
    for (i = 0; i < n; i++) a[i] = (i * 31) % 97;
    long s = 0;
    for (i = 0; i < n; i++) s += a[i] * (i & 7);
    printf("%ld\n", s);
    return 0;
}
