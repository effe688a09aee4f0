#include <stdio.h>
#include <omp.h>
/* OpenMP 5.0 routines and types (allocators, supported active levels) in a program of 2.0
   constructs: gcc 12 builds it, so ompcl must (its CPU versions then use the C compiler's
   OpenMP, which provides the routines); the loop over omp_alloc's memory runs on the CPU */
#define N 1000
int main(void) {
    omp_alloctrait_t traits[1] = {{omp_atk_alignment, 64}};
    omp_allocator_handle_t al = omp_init_allocator(omp_default_mem_space, 1, traits);
    double *v = (double *)omp_alloc(N * sizeof(double), al);
    int i;
    double s = 0;
    for (i = 0; i < N; i++) v[i] = i * 0.5;
#pragma omp parallel for reduction(+: s)
    for (i = 0; i < N; i++) s += v[i] * 2;
    printf("%.1f %d %d\n", s, omp_get_supported_active_levels() > 0, ((unsigned long)v % 64) == 0);
    omp_free(v, al);
    omp_destroy_allocator(al);
    return 0;
}
