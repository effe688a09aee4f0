/* ompcl-test: offload=some warn="'linear' is not translated to OpenCL" */
#include <stdio.h>
/* `linear(v: 2)` on a target loop: not translated, so the region runs on the host (before, the
   kernel ignored the clause: a wrong result); a write under `if (i == 0)` is one iteration's, no
   race: that region runs on the device */
#define N 1000
int A[N], flag[1];
int main(void) {
    int v = 0, i;
#pragma omp target parallel for linear(v: 2) map(tofrom: A)
    for (i = 0; i < N; i++) {
        v += 2;
        A[i] = v;
    }
    printf("%d %d %d\n", A[0], A[N - 1], v);
#pragma omp target parallel for map(tofrom: A, flag)
    for (i = 0; i < N; i++) {
        if (i == 0) flag[0] = 7;
        A[i] = A[i] * 3;
    }
    printf("%d %d %d\n", A[0], A[N - 1], flag[0]);
    return 0;
}
