/* ompcl-test: offload=none warn="'parallel'" */
#include <stdio.h>
#include <omp.h>
int main(void) {
    int base = 10, out[16] = {0}, inner_sizes = 0;
#pragma omp parallel firstprivate(base) num_threads(4)
    {
        int t = omp_get_thread_num();
        base += t;
        out[t] = base;
#pragma omp parallel num_threads(3)
        {
#pragma omp atomic
            inner_sizes += omp_get_num_threads();
        }
    }
    int i, s = 0;
    for (i = 0; i < 16; i++) s += out[i];
    printf("%d %d %d\n", s, base, inner_sizes);
    return 0;
}
