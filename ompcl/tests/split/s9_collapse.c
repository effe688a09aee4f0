/* ompcl-split: split=14,18 one=22 */
/* collapse(2) and collapse(3): the outer loop is the NDRange's last dimension, its chunks split;
   a collapse with a reduction is flattened into one dimension and stays on one device */
#include <stdio.h>
#include <stdlib.h>
#define N 130
#define M 70
#define L 6
int main(void) {
  double(*a)[M] = malloc(sizeof(double) * N * M), (*b)[M] = malloc(sizeof(double) * N * M);
  double(*c)[M][L] = malloc(sizeof(double) * N * M * L);
  int i, j, k;
  double s = 0;
#pragma omp parallel for collapse(2)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) a[i][j] = (i * 3 + j) % 13 * 0.5;
  a[N / 2][M / 2] = 42.0; /* host write between regions */
#pragma omp parallel for collapse(3)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      for (k = 0; k < L; k++) c[i][j][k] = a[i][j] * k + a[N - 1 - i][j];
#pragma omp parallel for collapse(2) reduction(+ : s)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) { b[i][j] = c[i][j][L - 1] - a[i][j]; s += b[i][j]; }
  double t = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) t += b[i][j] * ((i + j) % 5) + c[i][j][2];
  printf("%.6f %.6f %.6f\n", s, t, c[N - 1][M - 1][L - 1]);
  return 0;
}
