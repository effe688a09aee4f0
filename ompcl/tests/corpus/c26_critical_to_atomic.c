/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 10000, i;
    double sum = 0;
    int count = 0;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double v = i * 0.5;
#pragma omp critical
        sum = sum + v;
#pragma omp critical (cnt)
        {
            count += 2;
        }
    }
    printf("%.6g %d\n", sum, count);
    return 0;
}
