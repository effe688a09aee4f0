/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
double gsum = 1.0;
int main(void) {
    int n = 3000, i, k;
    double tmp[4];
    double carry = 100.0;
    double *out = malloc(n * sizeof(double));
    /* private array, firstprivate+lastprivate scalar, reduction into a global */
#pragma omp parallel for private(tmp, k) firstprivate(carry) lastprivate(carry) reduction(+: gsum)
    for (i = 0; i < n; i++) {
        for (k = 0; k < 4; k++) tmp[k] = i * 0.5 + k;
        out[i] = carry + tmp[3];           /* every iteration reads the firstprivate value */
        if (i == n - 1) carry = carry + 1; /* the last iteration's value comes out */
        gsum += tmp[0];
    }
    double s = 0;
    for (i = 0; i < n; i++) s += out[i];
    printf("%.6g %.6g %.6g\n", s, carry, gsum);
    return 0;
}
