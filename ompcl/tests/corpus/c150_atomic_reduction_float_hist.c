/* ompcl-test: offload=all */
#include <stdio.h>
/* Sum reductions over float and double histograms made atomic updates (atomic_reduction.rs): the
 * increments are 0.5 and 0.25 and the bins hold few enough of them that every order of the
 * additions gives the same (exact) sums. */
#define N 8192
#define B 128

int data[N];
float fh[B];
double dh[B];
double wd[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    data[i] = (i * 29 + 3) % B;
    wd[i] = (i % 4) * 0.25;
  }
#pragma omp parallel for reduction(+: fh[0:B])
  for (int i = 0; i < N; i++) fh[data[i]] += 0.5f;
  for (int b = 0; b < B; b += 9) printf("float %d %.3f\n", b, fh[b]);

  for (int b = 0; b < B; b++) dh[b] = 1.0;
#pragma omp parallel for reduction(+: dh)
  for (int i = 0; i < N; i++) {
    dh[data[i]] += wd[i];
    dh[(data[i] + 5) % B] = dh[(data[i] + 5) % B] - 0.25;
  }
  for (int b = 0; b < B; b += 9) printf("double %d %.3f\n", b, dh[b]);

  int m = B / 2;
#pragma omp parallel for reduction(+: fh[0:m])
  for (int i = 0; i < N; i++) {
    fh[data[i] % m]++;
    fh[(data[i] + 1) % m]--;
    fh[data[i] / 2] = fh[data[i] / 2] + 0.25f;
  }
  for (int b = 0; b < B; b += 9) printf("float2 %d %.3f\n", b, fh[b]);
  return 0;
}
