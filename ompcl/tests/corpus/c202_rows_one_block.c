/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* Rows carved out of one block (`rows[i] = rows[0] + i * n`, as Rodinia's kmeans builds them) and
 * rows of a global 2-D array: the kernel's buffer is the block's own device copy (no packing), so
 * it stays on the device between regions and comes back on the host's first access. The parallel
 * loop over the columns (the rows in an inner loop), as Rodinia's backprop does; a sum over the
 * rows into a column vector; the table's rows in reverse order. */

#define N 300
#define M 200

double g[40][50];

int main(void) {
  int i, j, k;
  double **w = malloc(N * sizeof(double *));
  w[0] = malloc((size_t)N * M * sizeof(double));
  for (i = 1; i < N; i++) w[i] = w[0] + (size_t)i * M;
  double *col = malloc(M * sizeof(double));
  double *x = malloc(N * sizeof(double));
  for (i = 0; i < N; i++) {
    x[i] = (i % 11) * 0.5;
    for (j = 0; j < M; j++) w[i][j] = (i + 2 * j) % 13;
  }

  /* the columns in parallel: read-modify-write of every row's element j */
  for (k = 0; k < 3; k++) {
#pragma omp parallel for private(i)
    for (j = 0; j < M; j++)
      for (i = 0; i < N; i++) w[i][j] = w[i][j] * 0.5 + x[i] * (k + 1);
  }

  /* reads only: a column sum */
#pragma omp parallel for private(i)
  for (j = 0; j < M; j++) {
    double s = 0;
    for (i = 0; i < N; i++) s += w[i][j];
    col[j] = s;
  }
  double t = 0;
  for (j = 0; j < M; j++) t += col[j] * (j % 4 + 1);
  printf("col %.4f\n", t);
  printf("w %.4f %.4f %.4f\n", w[0][0], w[N / 2][M / 3], w[N - 1][M - 1]);

  /* rows of a global array, in reverse order */
  int **r = malloc(40 * sizeof(int *));
  int *ib = calloc(40 * 50, sizeof(int));
  for (i = 0; i < 40; i++) r[i] = ib + (39 - i) * 50;
  double **gp = malloc(40 * sizeof(double *));
  for (i = 0; i < 40; i++) gp[i] = g[39 - i];
#pragma omp parallel for private(j)
  for (i = 0; i < 40; i++)
    for (j = 0; j < 50; j++) {
      gp[i][j] = i * 100 + j;
      r[i][j] = i - j;
    }
  long long s2 = 0;
  for (i = 0; i < 40; i++)
    for (j = 0; j < 50; j++) s2 += (long long)(g[i][j] + 0.5) * (i + 1) + ib[i * 50 + j] * (j + 7);
  printf("global %lld\n", s2);
  return 0;
}
