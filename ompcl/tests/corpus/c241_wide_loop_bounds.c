/* ompcl-test: offload=all */
/* Loop bounds and steps at the ends of 64-bit ranges (libgomp's loop-12): trip counts computed in
 * 128 bits (the bounds' difference overflows long long), unsigned long long variables above
 * LLONG_MAX, a step beyond LLONG_MAX, decrements of unsigned variables. Each loop records the
 * values its variable takes. */
#include <stdio.h>
#define LLONG_MAX __LONG_LONG_MAX__
#define ULLONG_MAX (LLONG_MAX * 2ULL + 1)
int hits[8][8];
int main(void) {
    long long i;
    unsigned long long j;
#pragma omp parallel for
    for (i = LLONG_MAX - 30001; LLONG_MAX - 10001 >= i; i += 10000) hits[0][(LLONG_MAX - i) / 10000] += 1;
#pragma omp parallel for
    for (i = -LLONG_MAX + 30000; -LLONG_MAX + 10000 <= i; i -= 10000) hits[1][(i + LLONG_MAX) / 10000] += 1;
#pragma omp parallel for
    for (j = 20; LLONG_MAX - 70 >= j; j += LLONG_MAX + 50ULL) hits[2][j == 20] += 1;
#pragma omp parallel for
    for (j = ULLONG_MAX - 3; LLONG_MAX + 70ULL <= j; j -= LLONG_MAX + 50ULL) hits[3][j == ULLONG_MAX - 3] += 1;
#pragma omp parallel for
    for (j = LLONG_MAX - 20000ULL; LLONG_MAX + 10000ULL >= j; j += 10000ULL) hits[4][(j - (LLONG_MAX - 20000ULL)) / 10000] += 1;
#pragma omp parallel for
    for (i = -3LL * 2147483647 - 20000LL; 2147483647 + 10000LL >= i; i += 2147483647 + 200LL) hits[5][(i + 3LL * 2147483647 + 20000LL) / (2147483647 + 200LL)] += 1;
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 8; b++) printf("%d", hits[a][b]);
        printf("\n");
    }
    return 0;
}
