/* Issue 11, bug 4: a worksharing `for` or a `barrier` closely nested in master/single/for is invalid
   OpenMP (gcc rejects it; run, it deadlocks). ompcl must refuse it with file:line:col. */
#include <stdio.h>
int main(void) {
  int a[100], i, j;
#pragma omp parallel
  {
#pragma omp master
    {
#pragma omp for
      for (i = 0; i < 100; i++) a[i] = i;
    }
#pragma omp single
    {
#pragma omp barrier
    }
#pragma omp for private(j)
    for (i = 0; i < 10; i++) {
#pragma omp for
      for (j = 0; j < 10; j++) a[i * 10 + j] += 1;
    }
#pragma omp for
    for (i = 0; i < 10; i++) {
#pragma omp parallel for
      for (j = 0; j < 10; j++) a[i * 10 + j] += 1; /* fine: a new team */
    }
  }
  printf("%d\n", a[5]);
  return 0;
}
