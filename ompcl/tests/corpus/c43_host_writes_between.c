/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* The host changes data between regions: the device copy must be refreshed (write tracking). */
static double G[20000];
int main(void) {
    int n = 20000, i, it;
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) { a[i] = 1; G[i] = 2; }
    double total = 0;
    for (it = 0; it < 6; it++) {
        double s = 0;
#pragma omp parallel for reduction(+: s)
        for (i = 0; i < n; i++) {
            b[i] = a[i] * 2 + G[i];
            s += b[i];
        }
        total += s;
        if (it == 1) a[n / 2] = 1000;           /* direct store */
        if (it == 2) memset(a, 0, 100 * sizeof(double)); /* library write */
        if (it == 3) G[n - 1] = -5;             /* global */
        if (it == 4) { double *p = &a[17]; *p = 3.5; }  /* through another pointer */
    }
    printf("%.6g %.6g %.6g\n", total, b[n / 2], b[n - 1]);
    return 0;
}
