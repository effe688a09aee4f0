/* ompcl-test: offload=all */
#include <stdio.h>
/* Histograms written by hand (manual_array.rs): each thread counts into a private array, zeroed
 * in its declaration, then adds it into the shared one in a critical section; rewritten as
 * atomic updates of the shared array. int and long, ++, += and -=, named and unnamed critical
 * sections, the size a macro or a number. */
#define N 10000
#define K 64

int data[N];
int hist[K];
long lh[32];

int main(void) {
  int i, j;
  for (i = 0; i < N; i++) data[i] = (i * 37 + 11) % K;
  for (j = 0; j < K; j++) hist[j] = j;
#pragma omp parallel private(j)
  {
    int local[K] = {0};
#pragma omp for
    for (i = 0; i < N; i++) local[data[i]]++;
#pragma omp critical
    for (j = 0; j < K; j++) hist[j] += local[j];
  }
  for (j = 0; j < K; j += 5) printf("int %d %d\n", j, hist[j]);

#pragma omp parallel
  {
    long local[32] = {};
#pragma omp for schedule(static) nowait
    for (i = 0; i < N; i++) {
      local[data[i] % 32] += 3;
      local[(data[i] + 1) % 32] -= 1;
      local[i % 32] = local[i % 32] + 2;
    }
#pragma omp critical(combine)
    {
      for (int jj = 0; jj < 32; jj++) {
        lh[jj] = lh[jj] + local[jj];
      }
    }
  }
  for (j = 0; j < 32; j += 3) printf("long %d %ld\n", j, lh[j]);
  return 0;
}
