/* ompcl-split: split=11 */
/* lastprivate: the device holding the last chunk gives the value */
#include <stdio.h>
#include <stdlib.h>
#define N 3001
int main(void) {
  double *a = malloc(N * sizeof(double));
  int i;
  double x = -1;
  for (i = 0; i < N; i++) a[i] = i * 0.5;
#pragma omp parallel for lastprivate(x)
  for (i = 0; i < N; i++) { x = a[i] * 2 + 1; a[i] = x; }
  printf("%.3f %.3f %.3f\n", x, a[0], a[N - 1]);
  return 0;
}
