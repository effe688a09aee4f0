/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
/* static local arrays and aligned allocations in offloaded loops */
static double run(int n) {
    static double w[256];
    static int calls = 0;
    int i;
    double *a = aligned_alloc(64, n * sizeof(double));
    double *b;
    if (posix_memalign((void **)&b, 4096, n * sizeof(double))) return -1;
    float *c = memalign(32, n * sizeof(float));
    for (i = 0; i < 256; i++) w[i] = i + calls;
    calls++;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        a[i] = w[i % 256] * 2;
        b[i] = a[i] + 1;
        c[i] = (float)b[i];
    }
    double s = 0;
    for (i = 0; i < n; i++) s += a[i] + b[i] + c[i];
    free(a);
    free(b);
    free(c);
    return s;
}
int main(void) {
    printf("%.6g %.6g\n", run(1000), run(50000));
    return 0;
}
