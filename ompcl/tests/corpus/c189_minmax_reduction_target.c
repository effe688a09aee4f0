/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* `target teams distribute parallel for` with max/min reductions over an array section and a
 * whole array whose uses are max/min updates of one element (atomic_reduction.rs): atomic max/min
 * on the device; the arrays mapped tofrom where no map clause names them, or as the map clause
 * says. */
#define N 40000
#define K 9
int data[N];
long top[K];
double low[20];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++) data[i] = (int)((i * 104729L) % 40009) - 20000;
    for (j = 0; j < K; j++) top[j] = -1;
    for (j = 0; j < 20; j++) low[j] = 100.0 + j;
#pragma omp target teams distribute parallel for reduction(max: top) map(to: data)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xffff) % K;
        if ((long)data[i] * data[i] > top[k]) top[k] = (long)data[i] * data[i];
    }
#pragma omp target teams distribute parallel for reduction(min: low[5:K]) map(to: data) map(tofrom: low[5:K])
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xffff) % K;
        low[5 + k] = data[i] * 0.001 < low[5 + k] ? data[i] * 0.001 : low[5 + k];
    }
    for (j = 0; j < K; j++) printf("%ld\n", top[j]);
    for (j = 0; j < 20; j++) printf("%.17g\n", low[j]);
    return 0;
}
