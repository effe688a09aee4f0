/* ompcl-test: offload=all */
/* Loop bounds and steps at the ends of 64-bit ranges (libgomp's loop-12): trip counts computed in
 * 128 bits (the bounds' difference overflows long long), unsigned long long variables above
 * LLONG_MAX, a step beyond LLONG_MAX, decrements of unsigned variables. Each loop records the
 * values its variable takes. Last, __LONG_LONG_MAX__ in a kernel. */
#include <stdio.h>
/* (constants, not macros, in the loop tests: libclang before 17 cannot read an operator next to
   a macro expansion, and ompcl translates alike with every libclang version) */
static const long long LLMAX = 0x7fffffffffffffffLL;
static const unsigned long long ULLMAX = 0xffffffffffffffffULL;
static const long long IMAX = 2147483647;
int hits[8][8];
int main(void) {
    long long i;
    unsigned long long j;
#pragma omp parallel for
    for (i = LLMAX - 30001; LLMAX - 10001 >= i; i += 10000) hits[0][(LLMAX - i) / 10000] += 1;
#pragma omp parallel for
    for (i = -LLMAX + 30000; -LLMAX + 10000 <= i; i -= 10000) hits[1][(i + LLMAX) / 10000] += 1;
#pragma omp parallel for
    for (j = 20; LLMAX - 70 >= j; j += LLMAX + 50ULL) hits[2][j == 20] += 1;
#pragma omp parallel for
    for (j = ULLMAX - 3; LLMAX + 70ULL <= j; j -= LLMAX + 50ULL) hits[3][j == ULLMAX - 3] += 1;
#pragma omp parallel for
    for (j = LLMAX - 20000ULL; LLMAX + 10000ULL >= j; j += 10000ULL) hits[4][(j - (LLMAX - 20000ULL)) / 10000] += 1;
#pragma omp parallel for
    for (i = -3LL * IMAX - 20000LL; IMAX + 10000LL >= i; i += IMAX + 200LL) hits[5][(i + 3LL * IMAX + 20000LL) / (IMAX + 200LL)] += 1;
    /* the C library's long long limit in a kernel (OpenCL C's own long long is 128 bits wide) */
#pragma omp parallel for
    for (int k = 0; k < 64; k++) hits[6][k % 8] += (int)(__LONG_LONG_MAX__ >> 56) - 126;
    for (int a = 0; a < 7; a++) {
        for (int b = 0; b < 8; b++) printf("%d", hits[a][b]);
        printf("\n");
    }
    return 0;
}
