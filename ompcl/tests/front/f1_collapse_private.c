/* issue 21: collapse(2) with the inner loop variable declared outside and listed in private()
   (PolyBench's 2DCONV style), and lastprivate of a collapsed inner loop variable */
#include <stdio.h>
#define NI 40
#define NJ 50
#define _PB_NI NI
#define _PB_NJ NJ
static double A[NI][NJ], B[NI][NJ];
int main(void)
{
  int i, j, li = -1, lj = -1;
  double s = 0;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      A[i][j] = (i * 7 + j * 3) % 11 * 0.5;
#pragma omp parallel for private(j) collapse(2) schedule(static)
  for (i = 1; i < _PB_NI - 1; ++i)
    for (j = 1; j < _PB_NJ - 1; ++j)
      B[i][j] = 0.2 * A[i - 1][j - 1] + 0.5 * A[i][j] - 0.8 * A[i + 1][j + 1];
#pragma omp parallel
  {
#pragma omp for private(j) collapse(2) schedule(dynamic, 7)
    for (i = 1; i < _PB_NI - 1; ++i)
      for (j = 1; j < _PB_NJ - 1; ++j)
        A[i][j] = B[i][j] * 2;
  }
#pragma omp parallel for collapse(2) lastprivate(i, j)
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j += 3)
      B[i][j] += 1;
  li = i;
  lj = j;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      s += A[i][j] + B[i][j];
  printf("%.6f %d %d\n", s, li, lj);
  return 0;
}
