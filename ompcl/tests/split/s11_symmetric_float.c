/* ompcl-split: split=13 */
/* s10's symmetric fill in float with an odd size: the devices' written ranges start and end off a
   16-byte boundary, so the device merge's byte-wise ends and its 16-byte units both run */
#include <stdio.h>
#define N 97
#define M 40
float data[N][M], sym[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) data[i][j] = ((i * 7 + j * 3) % 11) / 11.0f;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) sym[i][j] = -1.0f;
  /* the diagonal's neighbours keep their old value where an iteration writes it again (no change) */
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++) {
      float t = 0.0f;
      for (k = 0; k < M; k++) t += data[i][k] * data[j][k];
      sym[i][j] = (j == i + 1 && i % 5 == 0) ? -1.0f : t;
      sym[j][i] = sym[i][j];
    }
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += sym[i][j] * ((i + 3 * j) % 7);
  printf("%.6g %.6g %.6g %.6g\n", s, sym[N - 1][0], sym[5][N - 2], sym[33][32]);
  return 0;
}
