/* issue 21: strict C89 (no // comments, no declarations in for): built with -std=c89,
   -ansi, -std=gnu89; ompcl's generated host C must compile in the same dialect */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 64
int tp;
#pragma omp threadprivate(tp)
float g[N * N];
static long total(float *a, int n)
{
  int i;
  long s = 0;
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < n; i++)
    s += (long)a[i];
  return s;
}
int main()
{
  int i, j, last = 0, cnt = 0, crit = 0;
  double d = 0;
  float *h = (float *)malloc(sizeof(float) * N * N);
  for (i = 0; i < N * N; i++)
    g[i] = (float)(i % 13);
#pragma omp parallel for private(j) collapse(2)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      h[i * N + j] = g[i * N + j] * 2.0f;
#pragma omp parallel private(j)
  {
#pragma omp for lastprivate(last) schedule(dynamic, 3)
    for (i = 0; i < N; i++)
      last = (int)h[i] * 2;
#pragma omp sections reduction(+:cnt)
    {
#pragma omp section
      cnt += 1;
#pragma omp section
      cnt += 2;
    }
#pragma omp single
    d += 0.5;
#pragma omp critical
    crit += 1;
#pragma omp for collapse(2) reduction(+:d) ordered
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++) {
#pragma omp ordered
        d += g[i * 8 + j];
      }
  }
  printf("%ld %ld %d %d %g %d\n", total(g, N * N), total(h, N * N), last, cnt, d, crit > 0);
  free(h);
  return 0;
}
