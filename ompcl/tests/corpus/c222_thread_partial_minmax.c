/* ompcl-test: offload=all */
/* Per-thread partial max, min, |, ^ combined on the host (written by gen/thread_partials.py) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#define N 10007
#define K 5
#define MAXT 64
int lab[N];
static void max_int_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = -1000000;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = -1000000;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      if ((i * 37 % 1001) > part[tid]) part[tid] = (i * 37 % 1001);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      if (part[t] > tot[k]) tot[k] = part[t];
    }
  printf("max_int_scalar");
  for (int k = 0; k < 1; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void min_int_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = 1000000;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 1000000;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] = (i * 37 % 1001) < part[omp_get_thread_num() * K + k] ? (i * 37 % 1001) : part[omp_get_thread_num() * K + k];
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[t * K + k] < tot[k]) tot[k] = part[t * K + k];
    }
  printf("min_int_flat");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void max_long_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = malloc(nt * K * sizeof(long));
  for (i = 0; i < nt * K; i++) part[i] = -1000000000L;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = -1000000000L;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid] = ((long)(i * 37 % 1001) * 100000L) > part[k * nt + tid] ? ((long)(i * 37 % 1001) * 100000L) : part[k * nt + tid];
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[k * nt + t] > tot[k]) tot[k] = part[k * nt + t];
    }
  printf("max_long_minor");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static long min_long_rows_part[MAXT][K];
static void min_long_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  long (*part)[K] = min_long_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 1000000000L;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 1000000000L;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      if (((long)(i * 37 % 1001) * 100000L) < part[omp_get_thread_num()][k]) part[omp_get_thread_num()][k] = ((long)(i * 37 % 1001) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[t][k] < tot[k]) tot[k] = part[t][k];
    }
  printf("min_long_rows");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
}
static void max_float_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = malloc(nt * K * sizeof(float));
  for (i = 0; i < nt * K; i++) part[i] = -1e30f;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = -1e30f;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] = ((float)(i * 37 % 1001) * 0.5f) > part[tid] ? ((float)(i * 37 % 1001) * 0.5f) : part[tid];
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      if (part[t] > tot[k]) tot[k] = part[t];
    }
  printf("max_float_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void min_float_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = malloc(nt * K * sizeof(float));
  for (i = 0; i < nt * K; i++) part[i] = 1e30f;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 1e30f;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] = fminf(part[omp_get_thread_num() * K + k], ((float)(i * 37 % 1001) * 0.5f));
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[t * K + k] < tot[k]) tot[k] = part[t * K + k];
    }
  printf("min_float_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void max_double_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = -1e300;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = -1e300;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      if (((i * 37 % 1001) * 0.5) > part[k * nt + tid]) part[k * nt + tid] = ((i * 37 % 1001) * 0.5);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[k * nt + t] > tot[k]) tot[k] = part[k * nt + t];
    }
  printf("max_double_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static double min_double_rows_part[MAXT][K];
static void min_double_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  double (*part)[K] = min_double_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 1e300;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 1e300;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num()][k] = ((i * 37 % 1001) * 0.5) < part[omp_get_thread_num()][k] ? ((i * 37 % 1001) * 0.5) : part[omp_get_thread_num()][k];
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[t][k] < tot[k]) tot[k] = part[t][k];
    }
  printf("min_double_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void or_int_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[omp_get_thread_num()] |= 1 << (i % 29);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] |= part[t];
    }
  printf("or_int_scalar");
  for (int k = 0; k < 1; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void xor_int_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] ^= i * 7;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] ^= part[t * K + k];
    }
  printf("xor_int_flat");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void or_long_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + omp_get_thread_num()] |= 1L << (i % 29);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] |= part[k * nt + t];
    }
  printf("or_long_minor");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static long xor_long_rows_part[MAXT][K];
static void xor_long_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  long (*part)[K] = xor_long_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] ^= i * 7;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] ^= part[t][k];
    }
  printf("xor_long_rows");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
}
int main(void)
{
  for (int i = 0; i < N; i++) lab[i] = (i * 7 + i / 3) % K;
  max_int_scalar();
  min_int_flat();
  max_long_minor();
  min_long_rows();
  max_float_scalar();
  min_float_flat();
  max_double_minor();
  min_double_rows();
  or_int_scalar();
  xor_int_flat();
  or_long_minor();
  xor_long_rows();
  return 0;
}
