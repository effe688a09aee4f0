/* ompcl-test: offload=none warn="other than to pick the slot updated" warn="other than by an update of the thread's slot" warn="is not in a worksharing loop" warn="is not plainly the thread's own" warn="it asks for the number of threads" warn="is not a reset of the thread's slots: the value set is not a constant" */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
/* Per-thread slots that thread_partials.rs leaves as written (on the CPU): a slot read in the
   region, the thread number used for something else (a test, a schedule by hand), another
   thread's slot updated, the thread count asked for in the region, a reset to a value that is
   not a constant. Each prints the slots' total, the same with every number of threads. */
#define N 5000
double x[N];
int lab[N];

int main(void)
{
  int i, t, nt = omp_get_max_threads();
  double *part = calloc(nt, sizeof(double));
  double total;
  int flag = 0;
  for (i = 0; i < N; i++) { x[i] = (i % 11) * 0.5; lab[i] = i % 3; }

  /* a slot read in the region */
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      part[tid] += x[i];
      if (part[tid] < 0) flag = 2;
    }
  }
  total = 0;
  for (t = 0; t < nt; t++) { total += part[t]; part[t] = 0; }
  printf("read %.2f %d\n", total, flag);

  /* the array read otherwise (not through the thread number) */
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) {
      part[tid] += x[i];
      if (part[0] < -1) flag = 3;
    }
  }
  total = 0;
  for (t = 0; t < nt; t++) { total += part[t]; part[t] = 0; }
  printf("other %.2f %d\n", total, flag);

  /* the thread number tested */
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    if (tid == 0) flag = 1;
#pragma omp for
    for (i = 0; i < N; i++) part[tid] += x[i];
  }
  total = 0;
  for (t = 0; t < nt; t++) { total += part[t]; part[t] = 0; }
  printf("test %.2f %d\n", total, flag);

  /* a schedule by hand */
#pragma omp parallel
  {
    int tid = omp_get_thread_num(), j;
    for (j = tid; j < N; j += nt) part[tid] += x[j];
  }
  total = 0;
  for (t = 0; t < nt; t++) { total += part[t]; part[t] = 0; }
  printf("by hand %.2f\n", total);

  /* another thread's slot */
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < N; i++) part[(tid + 1) % nt] += x[i];
  }
  total = 0;
  for (t = 0; t < nt; t++) { total += part[t]; part[t] = 0; }
  printf("neighbour %.2f\n", total);

  /* the thread count asked for in the region */
  double *byk = calloc(3 * nt, sizeof(double));
#pragma omp parallel
  {
    int tid = omp_get_thread_num(), nth = omp_get_num_threads();
#pragma omp for
    for (i = 0; i < N; i++) byk[lab[i] * nth + tid] += x[i];
  }
  for (int k = 0; k < 3; k++) {
    total = 0;
    for (t = 0; t < nt; t++) total += byk[k * nt + t];
    printf("count %d %.2f\n", k, total);
  }

  /* a reset to a value read from memory */
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    part[tid] = x[0];
#pragma omp for
    for (i = 0; i < N; i++) part[tid] += x[i];
  }
  total = 0;
  for (t = 0; t < nt; t++) total += part[t];
  printf("reset %.2f\n", total);
  free(part);
  free(byk);
  return 0;
}
