/* Issue 11, bug 5: a string-valued -D (-DFMT="%.9g ") was forwarded to clBuildProgram, which failed,
   sending every region to the CPU. Built with -DFMT="%.9g " -DSCALE=3 -DFLAG. */
#include <stdio.h>
#ifndef SCALE
#define SCALE 1
#endif
static double a[4096];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 4096; i++) {
#ifdef FLAG
    a[i] = SCALE * i + 0.25;
#else
    a[i] = -1;
#endif
  }
  printf(FMT, a[4095]);
  printf(FMT, a[17]);
  printf("\n");
  return 0;
}
