/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 100000, i, hist[16] = {0}, total = 0;
    for (i = 0; i < n; i++) {
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        int b = (i * 7919) % 16;
#pragma omp atomic
        hist[b]++;
#pragma omp atomic
        total += 1;
    }
    for (i = 0; i < 16; i++) printf("%d ", hist[i]);
    printf("| %d\n", total);
    return 0;
}
