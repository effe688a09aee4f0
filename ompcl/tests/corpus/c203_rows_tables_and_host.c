/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
/* Several tables of row pointers in one loop (Rodinia backprop's weight update: w and oldw, the
 * column loop parallel), its forward pass (a sum over the rows per column), and the host between
 * the regions: it reads the results (lazy copy-back must bring them), writes rows (the next launch
 * must send them), and a region writes one row through a plain pointer before the table uses it.
 * Rows of 4096 doubles are 32 KiB blocks each: whole pages, protected between the regions. */

#define NIN 24
#define NH 4096

static double **alloc_2d(int m, int n) {
  double **t = malloc(m * sizeof(double *));
  int i;
  for (i = 0; i < m; i++) t[i] = malloc(n * sizeof(double));
  return t;
}

static void adjust(double *delta, int ndelta, double *ly, int nly, double **w, double **oldw) {
  double new_dw;
  int k, j;
  ly[0] = 1.0;
#pragma omp parallel for shared(oldw, w, delta) private(j, k, new_dw) firstprivate(ndelta, nly)
  for (j = 1; j <= ndelta; j++) {
    for (k = 0; k <= nly; k++) {
      new_dw = ((0.3 * delta[j] * ly[k]) + (0.3 * oldw[k][j]));
      w[k][j] += new_dw;
      oldw[k][j] = new_dw;
    }
  }
}

static void forward(double *l1, double *l2, double **conn, int n1, int n2) {
  double sum;
  int j, k;
  l1[0] = 1.0;
#pragma omp parallel for shared(conn, n1, n2, l1) private(k, j) reduction(+ : sum) schedule(static)
  for (j = 1; j <= n2; j++) {
    sum = 0.0;
    for (k = 0; k <= n1; k++) sum += conn[k][j] * l1[k];
    l2[j] = sum / (1.0 + (sum < 0 ? -sum : sum));
  }
}

int main(void) {
  int i, j, it;
  double **w = alloc_2d(NIN + 1, NH + 1), **oldw = alloc_2d(NIN + 1, NH + 1);
  double *delta = malloc((NH + 1) * sizeof(double)), *ly = malloc((NIN + 1) * sizeof(double));
  double *hid = malloc((NH + 1) * sizeof(double));
  for (i = 0; i <= NIN; i++) {
    ly[i] = (i % 5) * 0.25;
    for (j = 0; j <= NH; j++) {
      w[i][j] = ((i * 7 + j) % 17) * 0.125 - 1.0;
      oldw[i][j] = 0;
    }
  }
  for (j = 0; j <= NH; j++) delta[j] = ((j % 9) - 4) * 0.0625;

  /* a row written through a plain pointer first (its block on the device, newer than the host) */
  double *row3 = w[3];
#pragma omp parallel for
  for (j = 0; j <= NH; j++) row3[j] = j % 3;

  for (it = 0; it < 3; it++) {
    adjust(delta, NH, ly, NIN, w, oldw);
    /* the host reads a result and changes a row and an input between the regions */
    printf("it %d w[2][5] %.6f oldw[%d][7] %.6f\n", it, w[2][5], it, oldw[it][7]);
    for (j = 0; j <= NH; j++) w[it + 5][j] += 0.5;
    ly[1] += 0.125;
    forward(ly, hid, w, NIN, NH);
    double s = 0;
    for (j = 1; j <= NH; j++) s += hid[j] * (j % 7 + 1);
    printf("it %d hidden %.6f\n", it, s);
  }
  double t = 0, to = 0;
  for (i = 0; i <= NIN; i++)
    for (j = 0; j <= NH; j++) {
      t += w[i][j] * ((i + j) % 5 + 1);
      to += oldw[i][j] * ((i * j) % 3 + 1);
    }
  printf("w %.6f oldw %.6f\n", t, to);
  return 0;
}
