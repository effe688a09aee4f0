/* ompcl-split: split=19 */
/* s11's symmetric fill into a fresh allocation the host never writes (covariance's symmat):
   every device zeroes the block instead of taking device 0's bytes, and the merge compares with
   zero. An odd size in float puts the written ranges off 16-byte boundaries; a few elements are
   written as 0 (a write equal to the zero start must still end up 0); the elements no iteration
   writes (none here) would read as zero, as the fresh pages did on the host. */
#include <stdio.h>
#include <stdlib.h>
#define N 601
#define M 37
float data[N][M];
int main(void) {
  int i, j, k;
  float (*sym)[N] = malloc(sizeof(float) * N * N);
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) data[i][j] = ((i * 7 + j * 3) % 11) / 11.0f;
  for (i = 0; i < N; i += 5)
    for (j = 0; j < M; j++) data[i][j] = 0.0f; /* rows whose products are all zero */
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++) {
      float s = 0.0f;
      for (k = 0; k < M; k++) s += data[i][k] * data[j][k];
      sym[i][j] = s;
      sym[j][i] = s;
    }
  double t = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) t += sym[i][j] * ((i + 3 * j) % 7);
  printf("%.6g %.6g %.6g %.6g\n", t, (double)sym[N - 2][1], (double)sym[6][N - 3], (double)sym[301][300]);
  free(sym);
  return 0;
}
