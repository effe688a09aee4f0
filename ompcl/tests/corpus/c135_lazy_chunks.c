/* ompcl-test: offload=some */
#include <stdio.h>
#include <stdlib.h>
/* A result left on the device (lazy copy-back) that the host touches in two places: only the two
 * 2 MiB chunks touched come back; the chunk the host wrote goes back to the device before the next
 * kernel reads the array; then the host reads all of it, chunk after chunk. */
#define N (4 << 20)
int main(void) {
    double *a = malloc(N * sizeof(double));
    int i;
    for (i = 0; i < N; i++) a[i] = i % 5;
#pragma omp parallel for
    for (i = 0; i < N; i++) a[i] = a[i] * 2 + 1;
    a[N - 1] = 100;      /* a write: its chunk back, then writable */
    double x = a[N / 2]; /* a read: its chunk back, read-only */
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (i = 0; i < N; i++) s += a[i] * (i % 7);
    double t = 0;
    for (i = 0; i < N; i++) t += a[i] * (i % 3);
    printf("%.1f %.1f %.1f\n", x, s, t);
    free(a);
    return 0;
}
