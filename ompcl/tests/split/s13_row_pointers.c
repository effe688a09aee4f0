/* ompcl-split: one=16,19 */
/* tables of row pointers (rt_rows.c) stay on one device: rows in several blocks (packed per
   launch) and rows carved out of one block, written, then read back by the host */
#include <stdio.h>
#include <stdlib.h>
#define N 3000
#define M 64
int main(void) {
  float **a = malloc(N * sizeof(float *)), **b = malloc(N * sizeof(float *));
  float *blk = malloc((size_t)N * M * sizeof(float));
  int i, j;
  for (i = 0; i < N; i++) {
    a[i] = malloc(M * sizeof(float));
    b[i] = blk + (size_t)i * M;
  }
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) a[i][j] = i * 0.5f + j;
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) b[i][j] = a[i][j] * 2 - j;
  double s = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) s += b[i][j] * ((i + j) % 5 + 1);
  printf("%.3f\n", s);
  return 0;
}
