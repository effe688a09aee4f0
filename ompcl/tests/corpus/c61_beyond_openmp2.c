/* ompcl-test: offload=some warn="'task' is not OpenMP 2.0" */
#include <stdio.h>
#include <stdlib.h>
/* An OpenMP 3.0 construct: ompcl names it, the program's CPU versions use gcc's OpenMP,
   and the 2.0 loop is still offloaded. */
static long fib(int n) {
    long a, b;
    if (n < 2) return n;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}
int main(void) {
    int n = 10000, i;
    double *v = malloc(n * sizeof(double));
#pragma omp parallel for
    for (i = 0; i < n; i++) v[i] = i * 0.5;
    long f = 0;
#pragma omp parallel
    {
#pragma omp single
        f = fib(15);
    }
    double s = 0;
    for (i = 0; i < n; i++) s += v[i];
    printf("%.6g %ld\n", s, f);
    return 0;
}
