/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 5000, i, offset = 7;
    float scale = 1.5f;
    float *a = malloc(n * sizeof(float));
#pragma omp parallel for firstprivate(scale, offset)
    for (i = 0; i < n; i++) {
        a[i] = scale * (i % 100) + offset;
        scale = 0; /* private copy: the host value stays 1.5 */
        scale = 1.5f;
    }
    double s = 0;
    for (i = 0; i < n; i++) s += a[i];
    printf("%.6g %d %.6g\n", s, offset, scale);
    return 0;
}
