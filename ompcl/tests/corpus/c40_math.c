/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(void) {
    int n = 10000, i;
    double *d = malloc(n * sizeof(double));
    float *f = malloc(n * sizeof(float));
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double x = (i + 1) * 0.001;
        d[i] = sqrt(x) + sin(x) * cos(x) + exp(-x) + log(x + 1) + pow(x, 1.5) + fabs(x - 5) + floor(x * 3) + fmax(x, 2.0);
        float y = (float)x;
        f[i] = sqrtf(y) + fabsf(y - 1.0f) + expf(-y) + floorf(y);
    }
    double s = 0, t = 0;
    for (i = 0; i < n; i++) { s += d[i]; t += f[i]; }
    printf("%.6g %.5g\n", s, t);
    return 0;
}
