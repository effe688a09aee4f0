/* ompcl-test: offload=none warn="'reduction' on a 'parallel'" */
#include <stdio.h>
#include <omp.h>
int main(void) {
    int total = 0, team = 0, hits = 0;
    omp_lock_t lk;
    omp_nest_lock_t nl;
    omp_init_lock(&lk);
    omp_init_nest_lock(&nl);
#pragma omp parallel reduction(+: total) num_threads(4)
    {
        total += omp_get_thread_num() + 1;
        omp_set_lock(&lk);
        hits++;
        omp_unset_lock(&lk);
        omp_set_nest_lock(&nl);
        omp_set_nest_lock(&nl);
        team = omp_get_num_threads();
        omp_unset_nest_lock(&nl);
        omp_unset_nest_lock(&nl);
    }
    omp_destroy_lock(&lk);
    omp_destroy_nest_lock(&nl);
    printf("%d %d %d %d\n", total, hits, team, omp_in_parallel());
    return 0;
}
