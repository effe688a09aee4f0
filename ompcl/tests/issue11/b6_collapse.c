/* Issue 11, bug 6: collapse(n) was dropped in `parallel { for collapse(2) }` (the inner loop variable,
   declared outside, then shared by all work-items) and refused in `parallel for collapse(2)`. Both
   forms become one flattened index space; a non-rectangular nest spreads its outer loop only. */
#include <stdio.h>
#define N 37
#define M 23
#define K 5
float a[N][M], b[N][M], c[N][M][K], t[N][N];
int main(void) {
  int i, j, k;
  double s = 0;
#pragma omp parallel for collapse(2)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      a[i][j] = i * 100 + j;
#pragma omp parallel
  {
#pragma omp for collapse(2) schedule(static)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++)
        b[i][j] = a[i][j] * 2 + j;
#pragma omp for collapse(3)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++)
        for (k = 0; k < K; k++)
          c[i][j][k] = b[i][j] + k * i;
  }
#pragma omp parallel for collapse(2)
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++) /* triangular: outer loop only */
      t[i][j] = i + 0.5f * j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      s += b[i][j] * (i + 1);
      for (k = 0; k < K; k++) s += c[i][j][k] * (k + 1);
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) s += t[i][j] * (j + 1);
  printf("%.1f %.1f %.1f\n", s, b[N - 1][M - 1], c[3][4][2]);
  return 0;
}
