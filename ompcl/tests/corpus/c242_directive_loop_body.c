/* ompcl-test: offload=all */
/* A worksharing loop whose body is a directive and its statement, without braces (libgomp's
 * atomic-4): the CPU version's loop header must not swallow the directive. */
#include <stdio.h>
int main(void) {
    double d = 0;
    int i, c = 0, h[8] = {0};
#pragma omp parallel for shared(d)
    for (i = 0; i < 100000; i++)
#pragma omp atomic
        d += 1.0;
#pragma omp parallel for
    for (i = 0; i < 100000; i++)
        #pragma omp atomic
        h[i % 8] += 2;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < 1000; i++)
#pragma omp critical
            c += 3;
    }
    printf("%f %d %d %d\n", d, c, h[3], h[7]);
    return 0;
}
