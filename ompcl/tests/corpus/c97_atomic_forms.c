/* ompcl-test: offload=some warn="'write' is not OpenMP 2.0" */
#include <stdio.h>
/* (one region: offload=some says it ran as a kernel; the warning is the CPU versions going to cc -fopenmp) */
/* `atomic write` (an exchange on the device), `atomic read`, and `atomic` / `atomic update` in
   the form x = x op e, in kernels */
#define N 4096
int v[N];
int main(void) {
    int i, flag = 0, sum = 0, seen[N];
    long big = 0;
    double dsum = 0;
    for (i = 0; i < N; i++) v[i] = i % 7;
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int r;
#pragma omp atomic write
        flag = 42;
#pragma omp atomic
        sum = sum + v[i];
#pragma omp atomic update
        big = v[i] * 3 + big;
#pragma omp atomic
        dsum = dsum + 0.5 * v[i];
#pragma omp atomic read
        r = v[i];
        seen[i] = r;
    }
    long check = 0;
    for (i = 0; i < N; i++) check += seen[i];
    printf("flag=%d sum=%d big=%ld dsum=%.1f check=%ld\n", flag, sum, big, dsum, check);
    return 0;
}
