/* ompcl-test: offload=some */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 3000, i;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
#pragma omp parallel for target(pthread)
    for (i = 0; i < n; i++) a[i] = i * 0.25f;
#pragma omp parallel for target(opencl)
    for (i = 0; i < n; i++) b[i] = a[i] * 2 + 1;
    double s = 0;
    for (i = 0; i < n; i++) s += b[i];
    printf("%.6g\n", s);
    return 0;
}
