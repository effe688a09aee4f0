/* ompcl-test: offload=none warn="a 'single'/'master' inside a statement that every thread runs sets the region's variable 'mine'" */
#include <stdio.h>
/* Time loops inside a parallel region that stay on the CPU, each with its reason: a step's loop
 * that sets a variable of the region, and a `single` that does (each thread would keep its own
 * value; run once on the host every thread would see it). gcc's results either way. */
#define N 5000
float a[N], b[N];
int main(void) {
    int i;
    for (i = 0; i < N; i++) a[i] = (i * 3) % 11;
#pragma omp parallel
    {
        float last = 0;
        for (int s = 0; s < 3; s++) {
#pragma omp for
            for (int j = 0; j < N; j++) {
                a[j] = b[j] + s;
                last = a[j];
            }
        }
        (void)last;
    }
#pragma omp parallel
    {
        float mine = 0;
        for (int s = 0; s < 3; s++) {
#pragma omp for
            for (int j = 0; j < N; j++) b[j] = a[j] * 0.5f + s;
#pragma omp single
            mine = b[s];
        }
        (void)mine;
    }
    double sum = 0;
    for (i = 0; i < N; i++) sum += a[i] * (i % 5) + b[i];
    printf("%.3f\n", sum);
    return 0;
}
