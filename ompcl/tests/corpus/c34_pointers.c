/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* pointers into the middle of blocks, two pointers into one block, pointer walking in the body */
int main(void) {
    int n = 256, i;
    double *block = malloc(3 * n * n * sizeof(double));
    double *a = block, *b = block + n * n, *c = block + 2 * n * n;
    for (i = 0; i < n * n; i++) { a[i] = i % 11; b[i] = (i % 7) * 0.5; }
    double *mid = c + n; /* skip the first row */
#pragma omp parallel for
    for (i = 0; i < n - 1; i++) {
        const double *ra = a + i * n;
        const double *rb = &b[i * n];
        double *rc = mid + i * n;
        int j;
        for (j = 0; j < n; j++) {
            *rc++ = ra[j] + rb[j];
        }
    }
    for (i = 0; i < n; i++) c[i] = -1;
    double s = 0;
    for (i = 0; i < n * n; i++) s += c[i] * (i % 3);
    printf("%.6g %.6g %.6g\n", s, c[n], c[n * n - 1]);
    free(block);
    return 0;
}
