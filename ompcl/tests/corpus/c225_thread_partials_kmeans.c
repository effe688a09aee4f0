/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
/* Rodinia kmeans's step with flat arrays (its `float ***` rows are row pointers): every thread
   sums its points into its own slots (partial[tid][c][f], count[tid][c]), the host adds the slots
   up, zeroes them for the next step and moves the centres. The loop calls a function of the
   program and has a reduction of its own. */
#define NP 3000
#define NC 4
#define NF 3

float feat[NP * NF];
int member[NP];

static int nearest(const float *pt, const float *cen)
{
  int best = 0;
  float bd = 3.0e38f;
  for (int c = 0; c < NC; c++) {
    float d = 0;
    for (int f = 0; f < NF; f++) d += (pt[f] - cen[c * NF + f]) * (pt[f] - cen[c * NF + f]);
    if (d < bd) { bd = d; best = c; }
  }
  return best;
}

int main(void)
{
  int i, c, f, t, it, nthreads = omp_get_max_threads();
  float cen[NC * NF];
  float *partial = calloc(nthreads * NC * NF, sizeof(float));
  int *count = calloc(nthreads * NC, sizeof(int));
  for (i = 0; i < NP; i++) {
    member[i] = -1;
    for (f = 0; f < NF; f++) feat[i * NF + f] = (float)((i * (f + 3) * 7) % 64) * 0.25f;
  }
  for (c = 0; c < NC * NF; c++) cen[c] = feat[c * 5];
  for (it = 0; it < 3; it++) {
    float delta = 0;
#pragma omp parallel shared(feat, cen, partial, count)
    {
      int tid = omp_get_thread_num();
#pragma omp for private(f) schedule(static) reduction(+: delta)
      for (i = 0; i < NP; i++) {
        int idx = nearest(&feat[i * NF], cen);
        if (member[i] != idx) delta += 1.0f;
        member[i] = idx;
        count[tid * NC + idx]++;
        for (f = 0; f < NF; f++) partial[(tid * NC + idx) * NF + f] += feat[i * NF + f];
      }
    }
    int n[NC] = {0};
    float sum[NC * NF] = {0};
    for (c = 0; c < NC; c++)
      for (t = 0; t < nthreads; t++) {
        n[c] += count[t * NC + c];
        count[t * NC + c] = 0;
        for (f = 0; f < NF; f++) {
          sum[c * NF + f] += partial[(t * NC + c) * NF + f];
          partial[(t * NC + c) * NF + f] = 0;
        }
      }
    printf("step %d delta %.1f:", it, delta);
    for (c = 0; c < NC; c++) {
      printf(" %d", n[c]);
      for (f = 0; f < NF; f++) {
        if (n[c] > 0) cen[c * NF + f] = sum[c * NF + f] / n[c];
        printf(" %.3f", sum[c * NF + f]);
      }
    }
    printf("\n");
  }
  free(partial);
  free(count);
  return 0;
}
