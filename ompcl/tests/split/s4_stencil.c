/* ompcl-split: split=14 */
/* a 1-D stencil over flat arrays: iteration i reads a[i-1], a[i], a[i+1] (the devices' read
   slices overlap), writes b[i]; the arrays swap roles each step, and the host changes one element
   between steps (every device must see it) */
#include <stdio.h>
#include <stdlib.h>
#define N 5000
int main(void) {
  double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
  int i, t;
  for (i = 0; i < N; i++) a[i] = b[i] = (i % 17) * 0.25;
  for (t = 0; t < 6; t++) {
    double *src = t % 2 ? b : a, *dst = t % 2 ? a : b;
#pragma omp parallel for
    for (i = 1; i < N - 1; i++) dst[i] = (src[i - 1] + 2 * src[i] + src[i + 1]) / 4;
    src[N / 2] += 1.0; /* host write to the array just read */
    dst[N / 3] += 2.0; /* and to the one just written */
  }
  double s = 0;
  for (i = 0; i < N; i++) s += a[i] * (i % 3 + 1) - b[i];
  printf("%.10g %.10g %.10g\n", s, a[N / 2], b[N / 3 + 1]);
  return 0;
}
