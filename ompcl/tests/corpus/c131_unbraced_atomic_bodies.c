/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* A loop whose whole body is an `atomic` (or a `critical` of one update) written without braces:
 *     for (i = 0; i < N; i++)
 *     #pragma omp atomic
 *         count += 1;
 * The directive's line comes before the body statement, so it lay outside the text the kernel
 * took: the update was copied without its atomicity and the work-items raced (wrong counts, exit
 * 0). The body now includes such directives (kernel.rs). Forms: `parallel for`, `for` in a
 * `parallel`, `target teams distribute parallel for`, a `critical` made atomic; int, long,
 * unsigned and double; `+=`, `++`, `x = x + e`, `|=`. */
#define N 20000
int main(void) {
    int i, count = 0, hits = 0;
    long total = 0;
    unsigned bits = 0;
    double dsum = 0;
#pragma omp parallel for
    for (i = 0; i < N; i++)
#pragma omp atomic
        count += 1;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < N; i++)
#pragma omp atomic
            total = total + i;
    }
#pragma omp target teams distribute parallel for map(tofrom: bits, dsum)
    for (i = 0; i < N; i++)
#pragma omp atomic
        dsum += 0.5;
#pragma omp target teams distribute parallel for map(tofrom: bits)
    for (i = 0; i < 32 * 100; i++)
#pragma omp atomic
        bits |= 1u << (i % 32);
#pragma omp parallel for
    for (i = 0; i < N; i++)
#pragma omp critical
        hits++;
    printf("%d %ld %u %g %d\n", count, total, bits, dsum, hits);
    return 0;
}
