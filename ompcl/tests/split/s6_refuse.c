/* ompcl-split: one=11,13 */
/* regions that must stay on one device: a write through an index read from memory (the bytes
   per iteration are unknown), and an atomic update (it crosses iterations) */
#include <stdio.h>
#include <stdlib.h>
#define N 4000
int main(void) {
  int *idx = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int)), *hist = calloc(16, sizeof(int));
  int i;
  for (i = 0; i < N; i++) { idx[i] = (i * 37) % N; out[i] = 0; }
#pragma omp parallel for
  for (i = 0; i < N; i++) out[idx[i]] = i * 2;
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic
    hist[out[i] % 16] += 1;
  }
  long s = 0;
  for (i = 0; i < N; i++) s += (long)out[i] * (i % 5);
  for (i = 0; i < 16; i++) s += hist[i] * i;
  printf("%ld\n", s);
  return 0;
}
