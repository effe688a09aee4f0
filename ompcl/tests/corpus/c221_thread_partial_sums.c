/* ompcl-test: offload=all */
/* Per-thread partial sums (+=, ++, -=) combined on the host, every type and layout (written by gen/thread_partials.py) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#define N 10007
#define K 5
#define MAXT 64
int lab[N];
static void sum_int_pe_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] += ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_int_pe_scalar");
  for (int k = 0; k < 1; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_pe_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] += ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_int_pe_flat");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_pe_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid] += ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_int_pe_minor");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static int sum_int_pe_rows_part[MAXT][K];
static void sum_int_pe_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  int (*part)[K] = sum_int_pe_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] += ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_int_pe_rows");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
}
static void sum_int_pp_scalar(void)
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
      part[omp_get_thread_num()]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_int_pp_scalar");
  for (int k = 0; k < 1; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_pp_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_int_pp_flat");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_pp_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_int_pp_minor");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static int sum_int_pp_rows_part[MAXT][K];
static void sum_int_pp_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  int (*part)[K] = sum_int_pp_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num()][k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_int_pp_rows");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
}
static void sum_int_mm_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] -= ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_int_mm_scalar");
  for (int k = 0; k < 1; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_mm_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = malloc(nt * K * sizeof(int));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] -= ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_int_mm_flat");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_int_mm_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  int *part = calloc(nt * K, sizeof(int));
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + omp_get_thread_num()] -= ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_int_mm_minor");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
  free(part);
}
static int sum_int_mm_rows_part[MAXT][K];
static void sum_int_mm_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  int (*part)[K] = sum_int_mm_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  int tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] -= ((i + r) % 17);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_int_mm_rows");
  for (int k = 0; k < K; k++) printf(" %d", tot[k]);
  printf("\n");
  }
}
static void sum_long_pe_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] += ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_long_pe_scalar");
  for (int k = 0; k < 1; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_pe_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = malloc(nt * K * sizeof(long));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] += ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_long_pe_flat");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_pe_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid] += ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_long_pe_minor");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static long sum_long_pe_rows_part[MAXT][K];
static void sum_long_pe_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  long (*part)[K] = sum_long_pe_rows_part;
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
      part[tid][k] += ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_long_pe_rows");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
}
static void sum_long_pp_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[omp_get_thread_num()]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_long_pp_scalar");
  for (int k = 0; k < 1; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_pp_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = malloc(nt * K * sizeof(long));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_long_pp_flat");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_pp_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_long_pp_minor");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static long sum_long_pp_rows_part[MAXT][K];
static void sum_long_pp_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  long (*part)[K] = sum_long_pp_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num()][k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_long_pp_rows");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
}
static void sum_long_mm_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = calloc(nt * K, sizeof(long));
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] -= ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_long_mm_scalar");
  for (int k = 0; k < 1; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_mm_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  long *part = malloc(nt * K * sizeof(long));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  long tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] -= ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_long_mm_flat");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_long_mm_minor(void)
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
      part[k * nt + omp_get_thread_num()] -= ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_long_mm_minor");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
  free(part);
}
static long sum_long_mm_rows_part[MAXT][K];
static void sum_long_mm_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  long (*part)[K] = sum_long_mm_rows_part;
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
      part[tid][k] -= ((long)((i + r) % 17) * 100000L);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_long_mm_rows");
  for (int k = 0; k < K; k++) printf(" %ld", tot[k]);
  printf("\n");
  }
}
static void sum_float_pe_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] += ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_float_pe_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_pe_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = malloc(nt * K * sizeof(float));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] += ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_float_pe_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_pe_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid] += ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_float_pe_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static float sum_float_pe_rows_part[MAXT][K];
static void sum_float_pe_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  float (*part)[K] = sum_float_pe_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] += ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_float_pe_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void sum_float_pp_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[omp_get_thread_num()]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_float_pp_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_pp_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = malloc(nt * K * sizeof(float));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_float_pp_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_pp_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_float_pp_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static float sum_float_pp_rows_part[MAXT][K];
static void sum_float_pp_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  float (*part)[K] = sum_float_pp_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num()][k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_float_pp_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void sum_float_mm_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] -= ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_float_mm_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_mm_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = malloc(nt * K * sizeof(float));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] -= ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_float_mm_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_float_mm_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  float *part = calloc(nt * K, sizeof(float));
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + omp_get_thread_num()] -= ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_float_mm_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static float sum_float_mm_rows_part[MAXT][K];
static void sum_float_mm_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  float (*part)[K] = sum_float_mm_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  float tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] -= ((float)((i + r) % 17) * 0.25f);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_float_mm_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void sum_double_pe_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] += (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_double_pe_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_pe_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num() * K + k] += (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_double_pe_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_pe_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid] += (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_double_pe_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static double sum_double_pe_rows_part[MAXT][K];
static void sum_double_pe_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  double (*part)[K] = sum_double_pe_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] += (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_double_pe_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void sum_double_pp_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[omp_get_thread_num()]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_double_pp_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_pp_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_double_pp_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_pp_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + tid]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_double_pp_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static double sum_double_pp_rows_part[MAXT][K];
static void sum_double_pp_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  double (*part)[K] = sum_double_pp_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[omp_get_thread_num()][k]++;
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_double_pp_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
static void sum_double_mm_scalar(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      int k = 0;
      part[tid] -= (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < 1; k++) {
      tot[k] += part[t];
    }
  printf("sum_double_mm_scalar");
  for (int k = 0; k < 1; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_mm_flat(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = malloc(nt * K * sizeof(double));
  for (i = 0; i < nt * K; i++) part[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 64)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid * K + k] -= (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t * K + k];
    }
  printf("sum_double_mm_flat");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static void sum_double_mm_minor(void)
{
  int nt = omp_get_max_threads(), i, r;
  double *part = calloc(nt * K, sizeof(double));
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[k * nt + omp_get_thread_num()] -= (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[k * nt + t];
    }
  printf("sum_double_mm_minor");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
  free(part);
}
static double sum_double_mm_rows_part[MAXT][K];
static void sum_double_mm_rows(void)
{
  int nt = omp_get_max_threads(), i, r;
  double (*part)[K] = sum_double_mm_rows_part;
  for (i = 0; i < nt * K; i++) (&part[0][0])[i] = 0;
  for (r = 0; r < 1; r++) {
  double tot[K];
  for (int k = 0; k < K; k++) tot[k] = 0;
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for nowait
    for (i = 0; i < N; i++) {
      int k = lab[i];
      part[tid][k] -= (((i + r) % 17) * 0.25);
    }
  }
  for (int t = 0; t < nt; t++)
    for (int k = 0; k < K; k++) {
      tot[k] += part[t][k];
    }
  printf("sum_double_mm_rows");
  for (int k = 0; k < K; k++) printf(" %.3f", tot[k]);
  printf("\n");
  }
}
int main(void)
{
  for (int i = 0; i < N; i++) lab[i] = (i * 7 + i / 3) % K;
  sum_int_pe_scalar();
  sum_int_pe_flat();
  sum_int_pe_minor();
  sum_int_pe_rows();
  sum_int_pp_scalar();
  sum_int_pp_flat();
  sum_int_pp_minor();
  sum_int_pp_rows();
  sum_int_mm_scalar();
  sum_int_mm_flat();
  sum_int_mm_minor();
  sum_int_mm_rows();
  sum_long_pe_scalar();
  sum_long_pe_flat();
  sum_long_pe_minor();
  sum_long_pe_rows();
  sum_long_pp_scalar();
  sum_long_pp_flat();
  sum_long_pp_minor();
  sum_long_pp_rows();
  sum_long_mm_scalar();
  sum_long_mm_flat();
  sum_long_mm_minor();
  sum_long_mm_rows();
  sum_float_pe_scalar();
  sum_float_pe_flat();
  sum_float_pe_minor();
  sum_float_pe_rows();
  sum_float_pp_scalar();
  sum_float_pp_flat();
  sum_float_pp_minor();
  sum_float_pp_rows();
  sum_float_mm_scalar();
  sum_float_mm_flat();
  sum_float_mm_minor();
  sum_float_mm_rows();
  sum_double_pe_scalar();
  sum_double_pe_flat();
  sum_double_pe_minor();
  sum_double_pe_rows();
  sum_double_pp_scalar();
  sum_double_pp_flat();
  sum_double_pp_minor();
  sum_double_pp_rows();
  sum_double_mm_scalar();
  sum_double_mm_flat();
  sum_double_mm_minor();
  sum_double_mm_rows();
  return 0;
}
