/* ompcl-split: split=11 */
/* gemm over 2-D arrays: C's rows are sliced per device (read and written), A's too, B whole;
   the host writes C between the two runs */
#include <stdio.h>
#include <stdlib.h>
#define N 200
#define M 150
#define K 100
static void kernel(int ni, int nj, int nk, double alpha, double beta, double C[N][M], double A[N][K], double B[K][M]) {
  int i, j, k;
#pragma omp parallel
  {
#pragma omp for private(j, k)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++) {
        C[i][j] *= beta;
        for (k = 0; k < nk; ++k) C[i][j] += alpha * A[i][k] * B[k][j];
      }
  }
}
int main(void) {
  double (*A)[K] = malloc(sizeof(double) * N * K);
  double (*B)[M] = malloc(sizeof(double) * K * M);
  double (*C)[M] = malloc(sizeof(double) * N * M);
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < K; j++) A[i][j] = (i * j + 1) % 7 / 7.0;
  for (i = 0; i < K; i++) for (j = 0; j < M; j++) B[i][j] = (i + j * 3) % 5 / 5.0;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) C[i][j] = (i + j) % 3;
  kernel(N, M, K, 1.5, 1.2, C, A, B);
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += C[i][j] * (i + 1) + j;
  C[3][4] = 7;
  kernel(N, M, K, 1.5, 1.2, C, A, B);
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += C[i][j] * (i + 2) - j;
  printf("%.6f\n", s);
  return 0;
}
