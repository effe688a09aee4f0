/* ompcl-test: offload=all */
#include <stdio.h>
/* One-dimensional arrays declared at the top of a parallel region, outside its worksharing loops
 * (NPB LU's `double ue_1jk[5];`): each thread's own in OpenMP, each work-item's own in the kernel,
 * since every iteration writes each element before it reads it. double, float and int arrays,
 * without and with an initializer (read-only: each work-item starts from it), written in nested
 * inner loops, element by element with constant subscripts, read with a computed subscript after
 * the whole array was written; a region of two loops (the second `nowait`) using the same array. */

#define N 96
#define M 5

double u[N][N][M];
float fv[N][8];
int iv[N][4];
double two[2][N];

int main(void) {
  int i;
#pragma omp parallel
  {
    double ue[M], tmp;
    int j, m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (j = 0; j < N; j++) {
        for (m = 0; m < M; m++) ue[m] = i * 0.5 + j + m;
        tmp = 0;
        for (m = 0; m < M; m++) tmp += ue[m];
        for (m = 0; m < M; m++) u[i][j][m] = ue[m] * 2 + tmp / M;
      }
    }
  }

  /* float, written element by element, read through a computed subscript */
#pragma omp parallel
  {
    float f[8];
    const int scale[4] = {1, 3, 5, 7};
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      f[0] = i;
      f[1] = i * 0.25f;
      for (m = 2; m < 8; m++) f[m] = f[0] + m;
      for (m = 0; m < 8; m++) fv[i][m] = f[(m * 3) % 8] * scale[m % 4];
    }
  }

  /* int with an initializer it only reads, and one it overwrites first */
#pragma omp parallel
  {
    int base[4] = {10, 20, 30, 40};
    int w[4] = {-1, -1, -1, -1};
    int m;
#pragma omp for schedule(static, 3)
    for (i = 0; i < N; i++) {
      for (m = 0; m < 4; m++) w[m] = base[m] + i * m;
      for (m = 0; m < 4; m++) iv[i][m] = w[m] - w[3 - m];
    }
  }

  /* two loops in one region, the same array in both */
#pragma omp parallel
  {
    double acc[3];
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (m = 0; m < 3; m++) acc[m] = i + m * 0.5;
      two[0][i] = acc[0] * acc[1] - acc[2];
    }
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      acc[2] = two[0][i];
      acc[0] = acc[2] * 0.5;
      acc[1] = acc[0] + acc[2];
      two[1][i] = acc[1] + i;
    }
  }

  double s = 0, t = 0;
  long k = 0;
  for (i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int m = 0; m < M; m++) s += u[i][j][m] * ((i + 3 * j + 7 * m) % 11 + 1);
  for (i = 0; i < N; i++)
    for (int m = 0; m < 8; m++) t += fv[i][m] * (m + 1);
  for (i = 0; i < N; i++)
    for (int m = 0; m < 4; m++) k += (long)iv[i][m] * (i % 7 + m + 1);
  printf("u: %.6e %.6f %.6f\n", s, u[N - 1][N - 1][M - 1], u[3][17][2]);
  printf("fv: %.6e %.4f %.4f\n", t, fv[5][3], fv[N - 1][7]);
  printf("iv: %ld %d %d\n", k, iv[7][0], iv[N - 1][3]);
  double a = 0, b = 0;
  for (i = 0; i < N; i++) {
    a += two[0][i] * (i + 1);
    b += two[1][i] * (i % 5 + 1);
  }
  printf("two: %.6e %.6e %.6f %.6f\n", a, b, two[0][N - 1], two[1][N / 2]);
  return 0;
}
