/* ompcl-test: offload=all runwarn="stay in __global memory" */
#include <stdio.h>
#include <stdlib.h>
/* a read-only global array larger than any device's __constant memory (4 MiB; PoCL allows 2 MiB,
   NVIDIA 64 KiB): the runtime builds the file's kernels with it in __global memory */
#define N (1 << 19)
static double big[N];

int main(void) {
    int i;
    double *y = malloc(1000 * sizeof(double));
    for (i = 0; i < N; i++) big[i] = (double)(i % 1009) * 0.25;
#pragma omp parallel for
    for (i = 0; i < 1000; i++) {
        double s = 0;
        for (int k = i; k < N; k += 1000) s += big[k];
        y[i] = s;
    }
    double t = 0;
    for (i = 0; i < 1000; i++) t += y[i] * (i % 7);
    printf("%.4f\n", t);
    free(y);
    return 0;
}
