/* issue 21: older C that gcc builds (with warnings): implicit function declarations (no
   <string.h>, no <sys/time.h>), implicit int, K&R definitions, register without a type */
#include <stdio.h>
#include <stdlib.h>

static sq(x) int x; { return x * x; }

static twice(int x) { return 2 * x; }

static void put(p, n) float *p; int n; { p[0] = (float)n; }

float data[1000];
static count;

double now()
{
  struct { long s, us; } tv;
  gettimeofday(&tv, 0);
  return tv.s + tv.us * 1e-6;
}

main(argc, argv)
  int argc;
  char **argv;
{
  register i;
  long s = 0, t = 0;
  double t0 = now();
  if (argc > 1 && strcmp(argv[1], "-h") == 0)
    return 1;
  for (i = 0; i < 1000; i++)
    data[i] = (float)(i % 17);
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < 1000; i++)
    s += sq(i % 10);
#pragma omp parallel for reduction(+:t)
  for (i = 0; i < 1000; i++)
    t += twice((int)data[i]);
#pragma omp parallel
  {
#pragma omp single
    count = 3;
  }
#pragma omp parallel for
  for (i = 0; i < 1000; i++)
    put(&data[i], i % 5);
  for (i = 0; i < 1000; i++)
    t += (long)data[i];
  printf("%ld %ld %d %d\n", s, t, count, now() >= t0);
  return 0;
}
