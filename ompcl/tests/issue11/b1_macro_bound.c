/* Issue 11, bug 1: a loop bound written with a function-like macro (PolyBench's _PB_NI) must keep its
   text; it was emitted as `(long long)()`. */
#include <stdio.h>
#define NI 1000
#define LOOP_BOUND(x, y) y
#define _PB_NI LOOP_BOUND(NI, ni)
#define STEP(s) (s)
static float a[NI];
int main(void) {
  int i, ni = 777;
  for (i = 0; i < NI; i++) a[i] = 1;
#pragma omp parallel for
  for (i = 0; i < _PB_NI; i += STEP(1))
    a[i] = 2 * i + _PB_NI;
  double s = 0;
  for (i = 0; i < NI; i++) s += a[i];
  printf("%.1f %.1f %.1f\n", s, a[776], a[777]);
  return 0;
}
