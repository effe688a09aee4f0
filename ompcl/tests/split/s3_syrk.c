/* ompcl-split: split=14 */
/* syrk on the lower triangle: the inner bound follows i (j <= i); the rows of C written, A read
   at rows i and j (the whole of A) */
#include <stdio.h>
#include <stdlib.h>
#define N 150
#define M 80
double A[N][M], C[N][N]; /* globals: registered blocks */
int main(void) {
  int i, j, k;
  double alpha = 1.5, beta = 1.2;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) A[i][j] = ((i * j) % N) / (double)N;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) C[i][j] = ((i * j) % (M + 1)) / (double)M;
#pragma omp parallel for private(j, k)
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (k = 0; k < M; k++) C[i][j] += alpha * A[i][k] * A[j][k];
    }
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += C[i][j] * ((i + 2 * j) % 5);
  printf("%.10g %.10g %.10g\n", s, C[N - 1][0], C[3][N - 1]);
  return 0;
}
