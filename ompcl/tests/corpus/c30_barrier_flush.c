/* ompcl-test: offload=none warn="a statement outside any worksharing construct" */
#include <stdio.h>
#include <omp.h>
int main(void) {
    int data[64] = {0}, out[64] = {0};
#pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads(), k;
        for (k = t; k < 64; k += nt) data[k] = k * k;
#pragma omp flush(data)
#pragma omp barrier
        for (k = t; k < 64; k += nt) out[k] = data[63 - k];
    }
    long s = 0;
    int k;
    for (k = 0; k < 64; k++) s += out[k] * (k + 1);
    printf("%ld\n", s);
    return 0;
}
