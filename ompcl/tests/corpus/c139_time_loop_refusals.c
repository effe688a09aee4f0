/* ompcl-test: offload=none warn="'single' inside a statement that every thread runs is not translated to OpenCL" */
#include <stdio.h>
/* Time loops inside a parallel region that stay on the CPU: a `single` among the steps (the host
 * would run it as part of its loop, which ompcl does not translate yet), and a step's loop that
 * sets a variable of the region (each thread would keep its own value). gcc's results either way. */
#define N 5000
float a[N], b[N];
int main(void) {
    int i;
    float total = 0;
    for (i = 0; i < N; i++) a[i] = (i * 3) % 11;
#pragma omp parallel
    {
        for (int s = 0; s < 4; s++) {
#pragma omp for
            for (int j = 0; j < N; j++) b[j] = a[j] * 0.5f + s;
#pragma omp single
            total += b[s];
        }
    }
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
    double sum = 0;
    for (i = 0; i < N; i++) sum += a[i] * (i % 5) + b[i];
    printf("%.3f %.3f\n", sum, total);
    return 0;
}
