/* ompcl-test: offload=all */
/* Tables of row pointers in a matrix product (C[i][j] += A[i][k] * B[k][j], every operand a
 * table: work-items take (i, j) pairs when no two tables share a block, which the launch checks),
 * and a table whose rows are another table's (D and B over one block, D written): the no-alias
 * check fails, each work-item runs its whole row as written. */
#include <stdio.h>
#include <stdlib.h>
#define N 70
static double **mk(double *blk) { double **t = malloc(N * sizeof(double *)); int i; for (i = 0; i < N; i++) t[i] = blk ? blk + i * N : malloc(N * sizeof(double)); return t; }
int main(void) {
  int i, j, k, r;
  double *blk = malloc(N * N * sizeof(double));
  double **A = mk(NULL), **B = mk(blk), **C = mk(NULL);
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i + j) % 7; B[i][j] = (i * j) % 5; C[i][j] = 1; }
  for (r = 0; r < 2; r++) {
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++) C[i][j] += A[i][k] * B[k][j];
  /* D's rows are B's: read and written in place, each element by one iteration */
  double **D = mk(blk);
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < 3; k++) D[i][j] += B[i][j] * 0.5;
  }
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += C[i][j] * (i + 1) + B[i][j] * (j + 2);
  printf("%.3f\n", s);
  return 0;
}
