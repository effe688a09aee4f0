/* ompcl reduction benchmark (conformance/results/2026-11-28-ompcl-reduction-stride.md): a
 * `parallel for reduction(+:s)` over n doubles already on the device, best of 5 runs of the whole
 * region by omp_get_wtime, then float/max/count and pi reductions checked against a gcc build.
 *   target/release/ompcl -O2 bench/ompcl_reduce.c -o reduce
 *   OMPCL_DEVICE=gpu OMPCL_PLACEMENT=device OMPCL_DEVICES=1 [OMPCL_STRIDE_GROUPS=0] ./reduce [n]
 * (n: default 2^24; OMPCL_PLACEMENT=device, or a light kernel with data on the host runs on the CPU.) */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1 << 24; double *a = malloc(n * sizeof *a); double s = 0, best = 1e9;
  float *f = malloc(n * sizeof *f);
  #pragma omp parallel for
  for (long i = 0; i < n; i++) { a[i] = (i % 7) * 0.5; f[i] = (i % 5) * 0.25f; }
  for (int r = 0; r < 5; r++) {
    double t = omp_get_wtime(); s = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) s += a[i] * a[i];
    t = omp_get_wtime() - t; if (t < best) best = t;
  }
  float fs = 0, mx = -1; int cnt = 0;
  #pragma omp parallel for reduction(+:fs) reduction(max:mx) reduction(+:cnt)
  for (long i = 0; i < n; i++) { fs += f[i]; if (f[i] > mx) mx = f[i]; if (f[i] > 0.5f) cnt++; }
  double pi = 0, step = 1.0 / n;
  #pragma omp parallel for reduction(+:pi)
  for (long i = 0; i < n; i++) { double x = (i + 0.5) * step; pi += 4.0 / (1.0 + x * x); }
  printf("sum %.6e fs %.6e mx %g cnt %d pi %.10f\n", s, fs, mx, cnt, pi * step);
  fprintf(stderr, "best sum time %.3f ms, %.1f GB/s\n", best * 1e3, n * 8 / best / 1e9);
  return 0;
}
