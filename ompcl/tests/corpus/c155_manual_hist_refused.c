/* ompcl-test: offload=none warn="a reduction written by hand, but as a reduction clause the region stays on the CPU too" warn="the critical section is not 'for (j = 0; j < K; j++) hist[j] += local[j];'" warn="'local' is not initialised '= {0}' in its declaration" warn="is not a combine 'shared op= private'" */
#include <stdio.h>
/* Histograms written by hand that manual_array.rs leaves as written (on the CPU): the private
 * array read in the loop, a combine over a different bound, a combine that assigns, a non-zero
 * initialiser, a second statement in the critical section. */
#define N 2000
#define K 16

int data[N];
int hist[K];
int total;

int main(void) {
  int i, j;
  for (i = 0; i < N; i++) data[i] = (i * 7 + 3) % K;
#pragma omp parallel private(j)
  {
    int local[K] = {0};
#pragma omp for
    for (i = 0; i < N; i++) {
      if (local[data[i]] < 50) local[data[i]]++;
    }
#pragma omp critical
    for (j = 0; j < K; j++) hist[j] += local[j];
  }
  for (j = 0; j < K; j += 3) printf("read %d %d\n", j, hist[j]);
#pragma omp parallel private(j)
  {
    int local[K] = {0};
#pragma omp for
    for (i = 0; i < N; i++) local[data[i]]++;
#pragma omp critical
    for (j = 0; j < K - 1; j++) hist[j] += local[j];
  }
  for (j = 0; j < K; j += 3) printf("bound %d %d\n", j, hist[j]);
#pragma omp parallel private(j)
  {
    int local[K] = {0};
#pragma omp for
    for (i = 0; i < N; i++) local[data[i]]++;
#pragma omp critical
    for (j = 0; j < K; j++) hist[j] = local[j];
  }
  for (j = 0; j < K; j += 3) printf("assign %d %d\n", j, hist[j] > 0);
#pragma omp parallel private(j)
  {
    int local[K] = {1};
#pragma omp for
    for (i = 0; i < N; i++) local[data[i]]++;
#pragma omp critical
    for (j = 0; j < K; j++) hist[j] += local[j];
  }
#pragma omp parallel private(j)
  {
    int local[K] = {0};
#pragma omp for
    for (i = 0; i < N; i++) local[data[i]]++;
#pragma omp critical
    {
      for (j = 0; j < K; j++) hist[j] += local[j];
      total++;
    }
  }
  printf("total %d\n", total > 0);
  return 0;
}
