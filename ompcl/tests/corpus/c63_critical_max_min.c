/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* critical sections that are a max / min update become atomic max/min on the device */
int main(void) {
    int n = 20000, i;
    double *v = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) v[i] = (double)((i * 7919) % 10007) - 5000.5;
    double hi = -1e300, lo = 1e300;
    int ihi = -1000000;
    long llo = 1L << 40;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
#pragma omp critical
        {
            if (v[i] > hi) hi = v[i];
        }
#pragma omp critical (lo)
        if (lo > v[i]) lo = v[i];
#pragma omp critical
        if (ihi < (i * 37) % 1001) ihi = (i * 37) % 1001;
#pragma omp critical
        if ((long)i * 3 - 7 < llo) llo = (long)i * 3 - 7;
    }
    printf("%.6g %.6g %d %ld\n", hi, lo, ihi, llo);
    return 0;
}
