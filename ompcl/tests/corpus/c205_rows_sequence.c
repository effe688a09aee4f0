/* ompcl-test: offload=some runwarn="row 0 of 'sr' does not point into memory ompcl knows" */
#include <stdio.h>
#include <stdlib.h>
/* Tables of row pointers in a `parallel` region of several loops (each its own kernel, data kept
 * on the device between them), two tables whose rows lie in one block (one written, the other
 * read: both the block's one device copy), long and unsigned char elements, and a region of
 * several loops whose table has rows on the stack: found before the first kernel runs, so the
 * whole region runs on the CPU. */

#define N 64
#define M 48

int main(void) {
  int i, j;
  long **a = malloc(N * sizeof(long *)), **b = malloc(N * sizeof(long *));
  long *blk = malloc(2 * N * M * sizeof(long));
  unsigned char **c = malloc(N * sizeof(unsigned char *));
  for (i = 0; i < N; i++) {
    a[i] = blk + i * M;           /* the first half of the block */
    b[i] = blk + (2 * N - 1 - i) * M; /* the second half, in reverse */
    c[i] = malloc(M);
    for (j = 0; j < M; j++) {
      a[i][j] = i * 3 - j;
      b[i][j] = 0;
      c[i][j] = (unsigned char)(i + j);
    }
  }
#pragma omp parallel private(i, j)
  {
#pragma omp for
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++) b[i][j] = a[i][j] * a[i][j] + c[i][j];
#pragma omp for
    for (j = 0; j < M; j++)
      for (i = 0; i < N; i++) c[i][j] = (unsigned char)(c[i][j] * 3 + (b[i][j] & 15));
#pragma omp for
    for (i = 0; i < N; i++)
      for (j = 1; j < M; j++) a[i][j] = b[i][j] - b[i][j - 1];
  }
  long long s = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) s += (a[i][j] + 3 * b[i][j]) * (i + 1) + c[i][j] * (j + 1);
  printf("sequence %lld\n", s);

  /* rows on the stack, in a region of two loops */
  int r0[M], r1[M];
  int *rs[2] = {r0, r1};
  int **sr = malloc(2 * sizeof(int *));
  sr[0] = rs[0];
  sr[1] = rs[1];
  int *out = malloc(2 * sizeof(int));
#pragma omp parallel private(i, j)
  {
#pragma omp for
    for (i = 0; i < 2; i++)
      for (j = 0; j < M; j++) sr[i][j] = i * 100 + j;
#pragma omp for
    for (i = 0; i < 2; i++) {
      int t = 0;
      for (j = 0; j < M; j++) t += sr[i][j];
      out[i] = t;
    }
  }
  printf("stack %d %d %d\n", out[0], out[1], r1[M - 1]);
  return 0;
}
