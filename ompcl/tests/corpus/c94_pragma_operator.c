/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
#include "include/c94_pragmas.h"
/* OpenMP directives written with the _Pragma operator (C99 6.10.9): in a header's macros, in this
   file's macros (one invocation spread over several lines), and directly in the code; every region
   must be found and offloaded, and the lines after the expanded ones keep their numbers */
#define N 1000
#define PAR_FOR _Pragma("omp parallel for reduction(+: s)")
#define STR(x) #x
#define OMP(x) _Pragma(STR(omp x))
#define AXPY(y, a, x, n) do { \
    OMP(parallel for) \
    for (int i_ = 0; i_ < (n); i_++) (y)[i_] += (a) * (x)[i_]; \
} while (0)
double x[N], y[N];
int main(void) {
    double s = 0;
    int i;
    C94_PROBE
    for (i = 0; i < N; i++) { x[i] = i * 0.5; y[i] = 1.0; }
    AXPY(y,
         2.0,
         x, N);
    PAR_FOR
    for (i = 0; i < N; i++) s += y[i];
    C94_SCALE(x, N, 3.0)
    _Pragma("omp parallel for") for (i = 0; i < N; i++) y[i] = x[i] - y[i];
    printf("s=%.3f x[7]=%.3f y[9]=%.3f line=%d\n", s, x[7], y[9], __LINE__);
    printf("device region: %s\n", c94_on_device >= 0 ? "ran" : "missing");
    return 0;
}
