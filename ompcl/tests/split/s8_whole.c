/* ompcl-split: split=12,14 */
/* an array written in slices by one region and read whole by the next (each device must get the
   other devices' results), then written again by the host */
#include <stdio.h>
#include <stdlib.h>
#define N 6000
int main(void) {
  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
  int i, r;
  for (i = 0; i < N; i++) a[i] = (float)(i % 11);
  for (r = 0; r < 3; r++) {
#pragma omp parallel for
    for (i = 0; i < N; i++) a[i] = a[i] * 0.5f + (float)r;
#pragma omp parallel for
    for (i = 0; i < N; i++) b[i] = a[N - 1 - i] + a[0] + a[(i * 13) % N];
    a[7] = 100.0f + r; /* host write */
  }
  double s = 0;
  for (i = 0; i < N; i++) s += b[i] * (i % 7) + a[i];
  printf("%.4f %.4f %.4f\n", s, b[0], b[N - 1]);
  return 0;
}
