/* issue 21: CRLF line ends (also in a continued pragma line) */
#include <stdio.h>
#define N 100
int a[N];
int main(void)
{
  int i, s = 0, l = 0;
#pragma omp parallel for reduction(+:s) \
  lastprivate(l) schedule(dynamic, 3)
  for (i = 0; i < N; i++) {
    a[i] = i * 3;
    s += a[i]; l = i;
  }
#pragma omp parallel
  {
#pragma omp single
    s += 1;
  }
  printf("%d %d\n", s, l);
  return 0;
}
