/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 3000, i, j;
    int *a = malloc(n * sizeof(int));
#pragma omp parallel for default(none) shared(a, n) private(j)
    for (i = 0; i < n; i++) {
        int acc = 0;
        for (j = 0; j <= i % 17; j++) acc += j;
        a[i] = acc;
    }
    long s = 0;
    for (i = 0; i < n; i++) s += a[i];
    printf("%ld\n", s);
    return 0;
}
