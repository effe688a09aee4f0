/* ompcl-test: offload=some warn="'lastprivate' with 'collapse' is not translated to OpenCL" */
/* lastprivate of a collapsed loop's inner variable (libgomp's loop-18): after the region it holds
 * its value after the sequentially last iteration, also where the kernel runs the inner loop of
 * each row (a triangular nest; the rectangular collapse stays on the CPU); and of an inner loop
 * variable without collapse. */
#include <stdio.h>
int x, i, j;
int k[11][101];
int main(void) {
    int niters = 0;
    i = -100; j = -100; x = -100;
#pragma omp parallel for collapse(2) lastprivate(i, j, x) reduction(+ : niters)
    for (i = 1; i <= 10; i++)
        for (j = 1; j <= 10 * i; j++) { k[i][j]++; x = i * 1024 + (j & 1023); niters++; }
    printf("tri i=%d j=%d x=%d niters=%d\n", i, j, x, niters);
    niters = 0; i = -100; j = -100; x = -100;
#pragma omp parallel for collapse(2) lastprivate(i, j, x) reduction(+ : niters)
    for (i = 1; i <= 10; i++)
        for (j = 3; j < 100; j += 3) { k[i][j]++; x = i * 1024 + (j & 1023); niters++; }
    printf("rect i=%d j=%d x=%d niters=%d\n", i, j, x, niters);
    niters = 0; j = -100; x = -100;
#pragma omp parallel for lastprivate(j, x) reduction(+ : niters)
    for (i = 1; i <= 10; i++)
        for (j = 3; j < 100; j += 3) { k[i][j]++; x = i * 1024 + (j & 1023); niters++; }
    printf("inner j=%d x=%d niters=%d\n", j, x, niters);
    long s = 0;
    for (int a = 0; a < 11; a++)
        for (int b = 0; b < 101; b++) s += k[a][b] * (a + b);
    printf("s=%ld\n", s);
    return 0;
}
