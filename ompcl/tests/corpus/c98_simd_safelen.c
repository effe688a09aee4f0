/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* `target simd safelen(k)`: iterations k apart depend on each other (iteration i reads A[i]
   before iteration i + k overwrites it); one work-group of at most k work-items runs rounds of
   consecutive iterations with a barrier between rounds */
#define N 3000
int A[N];
int main(void) {
    int i;
    long s = 0;
    for (i = 0; i < N; i++) A[i] = i % 11 + 1;
#pragma omp target simd safelen(1) map(tofrom: A)
    for (i = 1; i < N; i++) A[i - 1] += A[i];
#pragma omp target simd safelen(4) map(tofrom: A)
    for (i = 4; i < N; i++) A[i - 4] += A[i];
#pragma omp target simd safelen(13) map(tofrom: A)
    for (i = 13; i < N; i++) A[i - 13] += A[i];
    for (i = 0; i < N; i++) s += A[i] * (long)(i % 5 + 1);
    printf("%ld %d %d\n", s, A[0], A[N - 20]);
    return 0;
}
