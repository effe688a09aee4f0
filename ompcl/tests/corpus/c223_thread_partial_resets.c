/* ompcl-test: offload=all */
/* Per-thread slots the region resets at its top, over stale slots; combined parallel for (written by gen/thread_partials.py) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#define N 10007
#define K 5
#define MAXT 64
int lab[N];
static void reset_double_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = 77;
  for (r = 0; r < 3; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    for (int kk = 0; kk < K; kk++)
      part[tid * K + kk] = 0;
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] += ((i % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("reset_double_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void reset_int_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = 77;
  for (r = 0; r < 3; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    for (int kk = 0; kk < K; kk++)
      part[kk * nt + omp_get_thread_num()] = 0;
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + omp_get_thread_num()] += (i % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("reset_int_minor");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static float reset_float_rows_part[MAXT][K];
static void reset_float_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  float (*part)[K] = reset_float_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 77;
  for (r = 0; r < 3; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    for (int kk = 0; kk < K; kk++)
      part[tid][kk] = 0;
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] += ((float)(i % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("reset_float_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void reset_long_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = malloc(nt * K * sizeof(long));
  for (i = 0; i < nt * K; i++) part[i] = 77;
  for (r = 0; r < 3; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    part[omp_get_thread_num()] = 0;
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = 0;
      part[omp_get_thread_num()] += ((long)(i % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("reset_long_scalar");
  for (int k = 0; k < 1; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void reset_max_num_threads(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = 77;
  for (r = 0; r < 2; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = -1e300;
#pragma omp parallel num_threads(nt)
  {
    int tid = omp_get_thread_num();
    for (int kk = 0; kk < K; kk++)
      part[tid * K + kk] = -1e300;
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = lab[i];
      if (((i * 37 % 1001) * 0.5) > part[tid * K + k]) part[tid * K + k] = ((i * 37 % 1001) * 0.5);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      if (part[t * K + k] > tot[k]) tot[k] = part[t * K + k];
    }
  printf("reset_max_num_threads");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void combined_inline(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    part[omp_get_thread_num() * K + lab[i]] += ((i % 17) * 0.25);
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("combined_inline");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void combined_inline_count(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel for schedule(dynamic, 100)
  for (i = 0; i < N; i++) {
    part[lab[i] * nt + omp_get_thread_num()]++;
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("combined_inline_count");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
int main(void)
{
  for (int i = 0; i < N; i++) lab[i] = (i * 7 + i / 3) % K;
  reset_double_flat();
  reset_int_minor();
  reset_float_rows();
  reset_long_scalar();
  reset_max_num_threads();
  combined_inline();
  combined_inline_count();
  return 0;
}
