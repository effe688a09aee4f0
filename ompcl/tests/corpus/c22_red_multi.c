/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 30000, i;
    double sum = 0, sq = 0;
    long cnt = 0;
    unsigned long ux = 0;
    double *v = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) v[i] = (i % 91) * 0.1 - 4;
#pragma omp parallel for reduction(+: sum, sq) reduction(+: cnt) reduction(^: ux)
    for (i = 0; i < n; i++) {
        sum += v[i];
        sq += v[i] * v[i];
        if (v[i] > 0) cnt++;
        ux ^= (unsigned long)i * 0x9E3779B97F4A7C15UL;
    }
    printf("%.6g %.6g %ld %lu\n", sum, sq, cnt, ux);
    return 0;
}
