/* ompcl-test: offload=some */
#include <stdio.h>
#include <stdlib.h>
/* Device data modified by a CPU-only region (threads write protected pages) between kernels. */
int main(void) {
    int n = 300000, i, it;
    float *a = malloc(n * sizeof(float));
    double total = 0;
    for (i = 0; i < n; i++) a[i] = 1.0f;
    for (it = 0; it < 3; it++) {
        double s = 0;
#pragma omp parallel for reduction(+: s)
        for (i = 0; i < n; i++) {
            a[i] = a[i] * 2.0f;
            s += a[i];
        }
#pragma omp parallel for target(pthread) schedule(dynamic, 1000)
        for (i = 0; i < n; i += 7) a[i] = 0.5f;
        total += s;
    }
    printf("%.8g\n", total);
    free(a);
    return 0;
}
