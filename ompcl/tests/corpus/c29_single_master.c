/* ompcl-test: offload=all (single/master run on the host between kernels) */
#include <stdio.h>
#include <omp.h>
int main(void) {
    int singles = 0, masters = 0, arr[100];
    int i;
#pragma omp parallel
    {
#pragma omp single
        singles++;
#pragma omp master
        masters++;
#pragma omp barrier
#pragma omp for
        for (i = 0; i < 100; i++) arr[i] = i * singles;
    }
    long s = 0;
    for (i = 0; i < 100; i++) s += arr[i];
    printf("%d %d %ld\n", singles, masters, s);
    return 0;
}
