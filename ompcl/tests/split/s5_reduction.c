/* ompcl-split: split=15,17 */
/* reductions combined over the devices (the original value counted once): int sum, double sum,
   max, min; a descending loop and a step of 3 */
#include <stdio.h>
#include <stdlib.h>
#define N 10000
int main(void) {
  int *v = malloc(N * sizeof(int));
  double *w = malloc(N * sizeof(double));
  int i;
  for (i = 0; i < N; i++) { v[i] = (i * 7919) % 1000 - 500; w[i] = v[i] * 0.5; }
  long total = 100;
  int mx = -1000000, mn = 1000000;
  double ds = 0.25;
#pragma omp parallel for reduction(+ : total, ds)
  for (i = N - 1; i >= 0; i--) { total += v[i]; ds += w[i]; }
#pragma omp parallel for reduction(max : mx) reduction(min : mn)
  for (i = 0; i < N; i += 3) { if (v[i] > mx) mx = v[i]; if (v[i] < mn) mn = v[i]; }
  printf("%ld %.3f %d %d\n", total, ds, mx, mn);
  return 0;
}
