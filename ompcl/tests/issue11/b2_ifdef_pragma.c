/* Issue 11, bug 2: pragmas in code the preprocessor skips (like polybench.c's `#ifdef POLYBENCH_PAPI`)
   must not be translated; they broke the host C. */
#include <stdio.h>
#include <omp.h>
static int a[256];
int main(void) {
  int i, t = 0;
#ifdef NOT_DEFINED_ANYWHERE
#pragma omp parallel
  {
#pragma omp master
    {
      t = omp_get_num_threads();
    }
  }
  this is not C at all;
#endif
#if 0
#pragma omp parallel for bogus_clause(
#endif
#pragma omp parallel for
  for (i = 0; i < 256; i++) a[i] = i * 3;
  for (i = 0; i < 256; i++) t += a[i];
  printf("%d\n", t);
  return 0;
}
