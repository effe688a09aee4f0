/* ompcl-test: offload=none warn="an iteration may read an element of 'cnt' before it writes it" warn="an iteration may read an element of 'z' before it writes it" warn="the region's array or struct 'e' is set in a worksharing loop and used outside one" warn="'w' is used as a pointer" warn="a 'single'/'master' uses the region's array or struct 's'" warn="an iteration may read an element of 'h' before it writes it" warn="'b' is used as a whole (a pointer to it)" */
#include <stdio.h>
/* Arrays and structs declared at the top of a parallel region that must keep it on the CPU, each
 * with its reason: an element read before the iteration writes it (the value would be one an
 * earlier iteration of the same thread left: a kernel's work-item never sees it), a write under a
 * condition then a read, an array a loop sets that the statements every thread runs use after it,
 * an array used as a pointer, a `single` that reads one (one thread's copy), and a second loop
 * reading what the first left; an array passed to a function that writes it through a moving
 * pointer (the check follows subscripts only). The outputs do not depend on the threads' schedule. */

#define N 60

double r1[N], r2[N], r3[N], r4[N], r5[N];
int r6[N];
double r7[N];

static void fill(int i, double *out) {
  int m;
  for (m = 0; m < 3; m++) {
    *out = i + m;
    out++;
  }
}

int main(void) {
  int i;
#pragma omp parallel
  {
    int cnt[2] = {0, 0};
#pragma omp for
    for (i = 0; i < N; i++) {
      cnt[0] += 1;
      cnt[1] = i;
      r1[i] = cnt[0] > 0 ? cnt[1] * 2.0 : -1.0;
    }
  }

#pragma omp parallel
  {
    double z[2];
#pragma omp for
    for (i = 0; i < N; i++) {
      if (i % 2 == 0) z[0] = i;
      z[1] = 0.5;
      r2[i] = i % 2 == 0 ? z[0] + z[1] : i - z[1];
    }
  }

#pragma omp parallel
  {
    double e[3], t;
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (m = 0; m < 3; m++) e[m] = i + m;
      r3[i] = e[0] * e[2];
    }
    t = e[1];
    (void)t;
  }

#pragma omp parallel
  {
    double w[4];
    double *q;
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (m = 0; m < 4; m++) w[m] = i * m;
      q = w;
      r4[i] = q[1] + q[3];
    }
  }

#pragma omp parallel
  {
    double s[2] = {1.5, 2.5};
#pragma omp for
    for (i = 0; i < N; i++) r5[i] = s[0] * i + s[1];
#pragma omp single
    r5[0] = s[1];
  }

#pragma omp parallel
  {
    int h[3] = {0, 1, 2};
    int m;
#pragma omp for
    for (i = 0; i < N; i++) {
      for (m = 0; m < 3; m++) h[m] = m;
      r6[i] = i;
    }
#pragma omp for
    for (i = 0; i < N; i++) r6[i] += h[2];
  }

#pragma omp parallel
  {
    double b[3];
#pragma omp for
    for (i = 0; i < N; i++) {
      fill(i, b);
      r7[i] = b[0] + b[2];
    }
  }

  double s = 0;
  long k = 0;
  for (i = 0; i < N; i++) s += r1[i] * 1 + r2[i] * 2 + r3[i] * 3 + r4[i] * 4 + r5[i] * 5 + r7[i] * 7;
  for (i = 0; i < N; i++) k += r6[i] * (i + 1);
  printf("%.6f %.4f %.4f %.4f %.4f %.4f %ld\n", s, r1[N - 1], r2[7], r3[9], r4[11], r5[0], k);
  return 0;
}
