/* ompcl-test: offload=all */
#include <stdio.h>
/* Float and double histograms written by hand (manual_array.rs): increments of 0.5 and 0.25,
 * few enough per bin that every order of the additions gives the same (exact) sums. */
#define N 4096
#define B 100

int data[N];

int main(void) {
  float fh[B];
  double dh[50];
  for (int i = 0; i < N; i++) data[i] = (i * 13 + 7) % B;
  for (int b = 0; b < B; b++) fh[b] = 0.0f;
  for (int b = 0; b < 50; b++) dh[b] = 1.0;
#pragma omp parallel
  {
    float local[B] = {0};
#pragma omp for
    for (int i = 0; i < N; i++) local[data[i]] += 0.5f;
#pragma omp critical
    for (int j = 0; j < B; j++) fh[j] += local[j];
  }
  for (int b = 0; b < B; b += 7) printf("float %d %.3f\n", b, fh[b]);
#pragma omp parallel
  {
    double local[50] = {0.0};
#pragma omp for
    for (int i = 0; i < N; i++) local[data[i] / 2] -= 0.25;
#pragma omp critical
    for (int j = 0; j < 50; ++j) dh[j] = local[j] + dh[j];
  }
  for (int b = 0; b < 50; b += 4) printf("double %d %.3f\n", b, dh[b]);
  return 0;
}
