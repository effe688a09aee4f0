/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* Tables of row pointers (`T **`, each row its own malloc) used as p[i][j] in kernels: the rows
 * are packed into one device buffer at each launch and the written ones copied back (rt_rows.c).
 * float writes, int read-modify-write, double reads only; the parallel loop over the rows. Rows
 * of different lengths (a triangle) and a row of the table left NULL that no iteration reads. */

#define N 37
#define M 53

static float **alloc_f(int n, int m) {
  float **t = malloc(n * sizeof(float *));
  int i;
  for (i = 0; i < n; i++) t[i] = malloc(m * sizeof(float));
  return t;
}

int main(void) {
  int i, j;
  float **a = alloc_f(N, M);
  int **cnt = malloc(N * sizeof(int *));
  double **tri = malloc((N + 1) * sizeof(double *));
  for (i = 0; i < N; i++) {
    cnt[i] = malloc(M * sizeof(int));
    tri[i] = malloc((i + 1) * sizeof(double));
    for (j = 0; j < M; j++) cnt[i][j] = i - j;
    for (j = 0; j <= i; j++) tri[i][j] = 0.5 * i + j;
  }
  tri[N] = NULL; /* never read */

  /* writes only */
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) a[i][j] = (float)(i * M + j) * 0.25f;

  /* read-modify-write of ints, reading the floats */
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) cnt[i][j] += (int)a[i][j] % 7;

  /* reads only: rows of different lengths, into a plain array */
  double rowsum[N];
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++) {
    double s = 0;
    for (j = 0; j <= i; j++) s += tri[i][j] * (j + 1);
    rowsum[i] = s;
  }

  long long ci = 0;
  double fa = 0, fr = 0;
  for (i = 0; i < N; i++) {
    for (j = 0; j < M; j++) {
      ci += (long long)cnt[i][j] * (i + 1) * (j + 3);
      fa += a[i][j] * (j % 5 + 1);
    }
    fr += rowsum[i] * (i % 3 + 1);
  }
  printf("cnt %lld\n", ci);
  printf("a %.3f\n", fa);
  printf("tri %.3f\n", fr);
  printf("corners %d %d %.2f %.2f\n", cnt[0][0], cnt[N - 1][M - 1], a[3][4], a[N - 1][M - 1]);
  return 0;
}
