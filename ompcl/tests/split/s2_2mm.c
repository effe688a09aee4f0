/* ompcl-split: split=15,21 */
/* 2mm: one parallel region of two loops (a kernel sequence) sharing the intermediate tmp, whose
   rows the first loop writes and the second reads; run twice with host writes between */
#include <stdio.h>
#include <stdlib.h>
#define NI 120
#define NJ 90
#define NK 70
#define NL 100
static void k2mm(int ni, int nj, int nk, int nl, double alpha, double beta, double tmp[NI][NJ], double A[NI][NK],
                 double B[NK][NJ], double C[NJ][NL], double D[NI][NL]) {
  int i, j, k;
#pragma omp parallel
  {
#pragma omp for private(j, k)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++) {
        tmp[i][j] = 0;
        for (k = 0; k < nk; ++k) tmp[i][j] += alpha * A[i][k] * B[k][j];
      }
#pragma omp for private(j, k)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nl; j++) {
        D[i][j] *= beta;
        for (k = 0; k < nj; ++k) D[i][j] += tmp[i][k] * C[k][j];
      }
  }
}
int main(void) {
  double(*tmp)[NJ] = malloc(sizeof(double) * NI * NJ);
  double(*A)[NK] = malloc(sizeof(double) * NI * NK);
  double(*B)[NJ] = malloc(sizeof(double) * NK * NJ);
  double(*C)[NL] = malloc(sizeof(double) * NJ * NL);
  double(*D)[NL] = malloc(sizeof(double) * NI * NL);
  int i, j, r;
  for (i = 0; i < NI; i++) for (j = 0; j < NK; j++) A[i][j] = ((i * j + 1) % NI) / (double)NI;
  for (i = 0; i < NK; i++) for (j = 0; j < NJ; j++) B[i][j] = (i * (j + 1) % NJ) / (double)NJ;
  for (i = 0; i < NJ; i++) for (j = 0; j < NL; j++) C[i][j] = ((i * (j + 3) + 1) % NL) / (double)NL;
  for (i = 0; i < NI; i++) for (j = 0; j < NL; j++) D[i][j] = (i * (j + 2) % NK) / (double)NK;
  for (r = 0; r < 2; r++) {
    k2mm(NI, NJ, NK, NL, 1.5, 1.2, tmp, A, B, C, D);
    double s = 0;
    for (i = 0; i < NI; i++) for (j = 0; j < NL; j++) s += D[i][j] * ((i + j) % 7);
    printf("run %d: %.10g tmp[5][7]=%.10g D[%d][3]=%.10g\n", r, s, tmp[5][7], NI - 1, D[NI - 1][3]);
    A[NI - 1][2] = 3.0; /* a host write between the runs: every device's copy of A is stale */
    B[0][0] = 0.5;
  }
  return 0;
}
