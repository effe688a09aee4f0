/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* `target teams distribute parallel for` with a sum reduction over an array section whose uses are
 * element updates (atomic_reduction.rs): atomic updates on the device; the array mapped tofrom where
 * no map clause names it, or as its own map clause says. */
#define N 10000
#define B 32

int data[N];
int hist[B];
double dh[B];

int main(void) {
  for (int i = 0; i < N; i++) data[i] = (i * 13 + i / 3) % B;
  for (int b = 0; b < B; b++) hist[b] = b;
#pragma omp target teams distribute parallel for reduction(+: hist[0:B]) map(to: data)
  for (int i = 0; i < N; i++) hist[data[i]]++;
  for (int b = 0; b < B; b += 5) printf("hist %d %d\n", b, hist[b]);

#pragma omp target teams distribute parallel for map(to: data) map(tofrom: dh) reduction(+: dh)
  for (int i = 0; i < N; i++) dh[data[i]] += 0.5;
  for (int b = 0; b < B; b += 5) printf("dh %d %.2f\n", b, dh[b]);
  return 0;
}
