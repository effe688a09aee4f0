/* ompcl-test: offload=none warn="loop variable is not an integer" */
/* Pointer loop variables (OpenMP's random-access iterators, libgomp's loop-11): the CPU version
 * counts elements, not bytes, from the first pointer; increasing and decreasing loops, the
 * pointer on either side of the comparison, steps of 1, 2 and 4 written every way, element
 * types of 2, 4 and 8 bytes, lastprivate of the pointer. */
#include <stdio.h>
#include <string.h>
short s[64];
int w[64];
double d[64];
int main(void) {
    short *p;
    int *q;
    double *r;
    int i;
    long sum = 0;
#pragma omp parallel for
    for (p = &s[10]; &s[54] > p; p++) *p = 5;
#pragma omp parallel for
    for (p = &s[3]; &s[63] >= p; p += 2) p[-2] += 6;
#pragma omp parallel for
    for (q = &w[16]; &w[51] > q; q = 4 + q) q[2] = 7;
#pragma omp parallel for
    for (q = &w[63]; &w[3] <= q; q -= 2) q[-1] += 3;
#pragma omp parallel for lastprivate(r)
    for (r = &d[60]; r > &d[1]; r = r - 3) *r = 1.5;
    for (i = 0; i < 64; i++) sum += s[i] * (i + 1) + w[i] * (i + 7) + (long)(d[i] * 2) * (i + 3);
    printf("sum=%ld last=%ld\n", sum, (long)(r - d));
    return 0;
}
