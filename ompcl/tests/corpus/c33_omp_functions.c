/* ompcl-test: offload=none warn="omp_get_thread_num" */
#include <stdio.h>
#include <omp.h>
int main(void) {
    int seen[64] = {0}, i, nthreads = 0;
    omp_set_num_threads(3);
    printf("max=%d inpar=%d\n", omp_get_max_threads(), omp_in_parallel());
    double t0 = omp_get_wtime();
#pragma omp parallel for
    for (i = 0; i < 300; i++) {
        seen[omp_get_thread_num()] = 1;
        if (i == 0) nthreads = omp_get_num_threads();
    }
    int used = 0;
    for (i = 0; i < 64; i++) used += seen[i];
    printf("nthreads=%d used<=3:%d procs>0:%d time>=0:%d\n", nthreads, used <= 3, omp_get_num_procs() > 0, omp_get_wtime() - t0 >= 0);
    return 0;
}
