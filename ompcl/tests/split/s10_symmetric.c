/* ompcl-split: split=13 */
/* covariance's symmetric fill: iteration i writes row i right of the diagonal and column i below
   it, so the devices' written ranges overlap while each element has one writer: split only with
   OMPCL_SPLIT_MERGE=1 (the test runs set it), the results merged */
#include <stdio.h>
#define N 96
#define M 40
double data[N][M], sym[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) data[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) sym[i][j] = -1.0;
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++) {
      sym[i][j] = 0.0;
      for (k = 0; k < M; k++) sym[i][j] += data[i][k] * data[j][k];
      sym[j][i] = sym[i][j];
    }
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += sym[i][j] * ((i + 3 * j) % 7);
  printf("%.10g %.10g %.10g\n", s, sym[N - 1][0], sym[5][N - 2]);
  return 0;
}
