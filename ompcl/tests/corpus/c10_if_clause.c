/* ompcl-test: offload=some */
#include <stdio.h>
#include <stdlib.h>
static void run(int *a, int n) {
    int i;
#pragma omp parallel for if (n > 100)
    for (i = 0; i < n; i++) a[i] = 3 * i + 1;
}
int main(void) {
    int *a = malloc(1000 * sizeof(int)), i;
    run(a, 50);   /* if false: CPU version */
    long s1 = 0;
    for (i = 0; i < 50; i++) s1 += a[i];
    run(a, 1000); /* offloaded */
    long s2 = 0;
    for (i = 0; i < 1000; i++) s2 += a[i];
    printf("%ld %ld\n", s1, s2);
    return 0;
}
