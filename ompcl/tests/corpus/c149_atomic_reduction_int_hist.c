/* ompcl-test: offload=all */
#include <stdio.h>
/* Array-section and whole-array sum reductions over integer histograms whose every use in the loop
 * is an update of one element (atomic_reduction.rs): the items are dropped from the clause and each
 * update becomes `#pragma omp atomic`, on the device and on the CPU. Forms: a[e]++, ++a[e], a[e]--,
 * a[e] += v, a[e] -= v, a[e] = a[e] + v, a[e] = v + a[e], a[e] = a[e] - v, inside an if, two arrays
 * in one clause with a scalar, a 2-D array, and a section over a pointer. */
#define N 20000
#define B 64

int data[N];
int w[N];
int hist[B];
long lh[B];
unsigned uh[B];
unsigned long ulh[B];
int h2[8][B];

static void fill(int *p, int n) {
  for (int i = 0; i < n; i++) p[i] = 0;
}

int main(void) {
  for (int i = 0; i < N; i++) {
    data[i] = (i * 37 + i / 7) % B;
    w[i] = i % 5 - 1;
  }
  int *ph = hist;
  long total = 0;

#pragma omp parallel for reduction(+: hist[0:B])
  for (int i = 0; i < N; i++) hist[data[i]]++;
  for (int b = 0; b < B; b += 7) printf("inc %d %d\n", b, hist[b]);

  fill(hist, B);
#pragma omp parallel for reduction(+: hist)
  for (int i = 0; i < N; i++) {
    ++hist[data[i]];
    hist[(data[i] + 1) % B] += w[i];
  }
  for (int b = 0; b < B; b += 7) printf("whole %d %d\n", b, hist[b]);

  for (int b = 0; b < B; b++) lh[b] = 1000000000L * 4;
#pragma omp parallel for reduction(+: lh[0:B], total)
  for (int i = 0; i < N; i++) {
    lh[data[i]] -= 1;
    if (w[i] > 0) lh[data[N - 1 - i]] = lh[data[N - 1 - i]] + (long)w[i] * 100000000L;
    total += w[i];
  }
  for (int b = 0; b < B; b += 7) printf("long %d %ld\n", b, lh[b]);
  printf("total %ld\n", total);

#pragma omp parallel for reduction(+: uh[0:B], ulh)
  for (int i = 0; i < N; i++) {
    uh[data[i]] = 3u + uh[data[i]];
    uh[i % B]--;
    ulh[data[i]] = ulh[data[i]] - 1;
  }
  for (int b = 0; b < B; b += 7) printf("unsigned %d %u %lu\n", b, uh[b], ulh[b]);

#pragma omp parallel for reduction(+: h2)
  for (int i = 0; i < N; i++) h2[i % 8][data[i]] += 1;
  for (int r = 0; r < 8; r += 3)
    for (int b = 0; b < B; b += 13) printf("2d %d %d %d\n", r, b, h2[r][b]);

  int n = B;
  fill(ph, n);
#pragma omp parallel for reduction(+: ph[0:n])
  for (int i = 0; i < N; i++) ph[data[i] % n] += 2;
  for (int b = 0; b < B; b += 7) printf("pointer %d %d\n", b, ph[b]);
  return 0;
}
