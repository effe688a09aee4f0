/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 64, i;
    unsigned int mask_or = 0, mask_and = 0xffffffffu, x = 0;
    long big = 0;
    double prod = 1.0;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
#pragma omp atomic
        mask_or |= 1u << (i % 32);
#pragma omp atomic
        mask_and &= ~(1u << (i % 16));
#pragma omp atomic
        x ^= (unsigned)i * 2654435761u;
#pragma omp atomic
        big += (long)i * 100000000L;
#pragma omp atomic
        prod *= 1.01;
#pragma omp atomic
        big--;
    }
    printf("%u %u %u %ld %.6g\n", mask_or, mask_and, x, big, prod);
    return 0;
}
