/* issue 21: `simd` treated as a plain loop: `parallel for simd`, `for simd` (with vector hints)
   are worksharing loops, a `simd` alone on a loop is the loop as written */
#include <stdio.h>
#define N 1000
float a[N], b[N];
double c[N];
int main(void)
{
  int i, j;
  double s = 0, t = 0;
  for (i = 0; i < N; i++) {
    a[i] = (float)(i % 10);
    b[i] = (float)(i % 3);
  }
#pragma omp parallel for simd reduction(+:s) safelen(8)
  for (i = 0; i < N; i++)
    s += a[i] * b[i];
#pragma omp parallel
  {
#pragma omp for simd simdlen(4) aligned(a, b: 32)
    for (i = 0; i < N; i++)
      c[i] = a[i] + 2 * b[i];
  }
#pragma omp parallel for private(j)
  for (i = 0; i < N / 10; i++) {
    double r = 0;
#pragma omp simd reduction(+:r)
    for (j = 0; j < 10; j++)
      r += c[i * 10 + j];
    c[i * 10] = r;
  }
#pragma omp simd reduction(+:t) lastprivate(j)
  for (j = 0; j < N; j++)
    t += c[j];
  printf("%.3f %.3f %d\n", s, t, j);
  return 0;
}
