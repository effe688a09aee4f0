/* ompcl-test: offload=all */
#include <stdio.h>
/* Two-dimensional arrays, structs and arrays of structs declared at the top of a parallel region
 * (NPB BT/SP's `double tmp[5][5]`), each work-item's own in the kernel: a 2-D array filled by a
 * loop nest, a struct set member by member, a struct with an array member, an array of structs;
 * an array the region fills before its loop (every thread the same values: the host runs it once,
 * each work-item starts from them); and NPB LU's setiv pattern, an array (and a row of a 2-D one)
 * filled by a function of the program (the kernel calls a copy of it taking a __private array);
 * a row filled and read again inside each pass of an outer inner loop. */

#define N 64

typedef struct {
  double x, y;
  int n;
} pt;

typedef struct {
  double v[3];
  int tag;
} vec3;

double ce[5][4];
double r1[N][N], r2[N][4], r3[N][6], r4[N][5], r5[N][4][3];

/* the exact-solution helper of NPB LU: writes every element of its array parameter */
static void exact(int i, int j, double out[5]) {
  int m;
  double xi = i / (double)(N - 1), eta = j / (double)(N - 1);
  for (m = 0; m < 5; m++) out[m] = ce[m][0] + ce[m][1] * xi + ce[m][2] * eta + ce[m][3] * xi * eta;
}

int main(void) {
  int i;
  for (i = 0; i < 5; i++)
    for (int k = 0; k < 4; k++) ce[i][k] = 0.5 * i + k * 0.125 + 1.0;

#pragma omp parallel
  {
    double tmp[3][4];
    pt p;
    int j, m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (j = 0; j < 3; j++)
        for (m = 0; m < 4; m++) tmp[j][m] = i * j + m;
      p.x = i;
      p.y = 2.0 * i;
      p.n = i % 3;
      for (j = 0; j < N; j++) r1[i][j] = tmp[j % 3][j % 4] + p.x * p.y + p.n;
    }
  }

#pragma omp parallel
  {
    vec3 a;
    vec3 pts[4];
    pt q = {1.0, 2.0, 3};
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      a.tag = i % 5;
      for (m = 0; m < 3; m++) a.v[m] = i + m;
      for (m = 0; m < 4; m++) {
        pts[m].tag = m;
        pts[m].v[0] = a.v[m % 3] * q.x;
        pts[m].v[1] = q.y;
        pts[m].v[2] = m * 0.5;
      }
      for (m = 0; m < 4; m++) r2[i][m] = pts[m].v[0] + pts[m].v[1] * pts[m].v[2] + pts[m].tag + a.tag + q.n;
    }
  }

#pragma omp parallel
  {
    double w[6];
    int m;
    for (m = 0; m < 6; m++) w[m] = m * m + 0.5;
#pragma omp for
    for (i = 0; i < N; i++)
      for (m = 0; m < 6; m++) r3[i][m] = w[m] * i + w[5 - m];
  }

#pragma omp parallel
  {
    double ue_1j[5], ue_i1[5];
    double rows[2][5];
    int j, m;
#pragma omp for
    for (j = 0; j < N; j++) {
      exact(0, j, ue_1j);
      exact(j, 0, ue_i1);
      exact(j, j, rows[1]);
      for (m = 0; m < 5; m++) rows[0][m] = ue_1j[m] - ue_i1[m];
      for (m = 0; m < 5; m++) r4[j][m] = rows[0][m] * 3 + rows[1][m];
    }
  }

#pragma omp parallel
  {
    double a[4][3];
    int j, m;
#pragma omp for
    for (i = 0; i < N; i++)
      for (j = 0; j < 4; j++) {
        for (m = 0; m < 3; m++) a[j][m] = i * j + m;
        for (m = 0; m < 3; m++) r5[i][j][m] = a[j][m] + a[j][2 - m] * 0.5;
      }
  }

  double s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  for (i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) s1 += r1[i][j] * ((i + j) % 7 + 1);
    for (int m = 0; m < 4; m++) s2 += r2[i][m] * (m + 1);
    for (int m = 0; m < 6; m++) s3 += r3[i][m] * (m + 2);
    for (int m = 0; m < 5; m++) s4 += r4[i][m] * (i % 3 + m + 1);
    for (int j = 0; j < 4; j++)
      for (int m = 0; m < 3; m++) s5 += r5[i][j][m] * (i + 2 * j + 3 * m + 1);
  }
  printf("r1: %.6e %.4f %.4f\n", s1, r1[N - 1][5], r1[10][11]);
  printf("r2: %.6e %.4f %.4f\n", s2, r2[N - 1][3], r2[7][1]);
  printf("r3: %.6e %.4f\n", s3, r3[N / 2][4]);
  printf("r4: %.6e %.6f %.6f\n", s4, r4[N - 1][4], r4[9][0]);
  printf("r5: %.6e %.4f\n", s5, r5[N - 1][3][1]);
  return 0;
}
