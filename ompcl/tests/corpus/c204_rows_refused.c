/* ompcl-test: offload=none warn="pointer to pointer 'p' used other than as 'p[i][j]'" warn="pointer to pointer 'q' used other than as 'q[i][j]'" runwarn="does not point into memory ompcl knows" */
#include <stdio.h>
#include <stdlib.h>
/* Tables of row pointers that must keep their regions on the CPU, with gcc's results: rows set in
 * the region (`p[i] = ...`), a row pointer read into a local (`float *r = q[i]`), rows that are
 * arrays on the stack (the runtime knows no block for them: found at the launch), and rows packed
 * from several blocks, written, while another argument points into one of them (two device copies
 * of one block). */

#define N 20
#define M 30

int main(void) {
  int i, j;
  float **p = malloc(N * sizeof(float *)), **q = malloc(N * sizeof(float *));
  float *blk = malloc(N * M * sizeof(float)), *blk2 = malloc(N * M * sizeof(float));
  for (i = 0; i < N; i++) {
    q[i] = malloc(M * sizeof(float));
    for (j = 0; j < M; j++) q[i][j] = i + j;
  }

  /* rows set in the region */
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++) {
    p[i] = (i % 2) ? blk + i * M : blk2 + i * M;
    for (j = 0; j < M; j++) p[i][j] = q[i][j] * 2;
  }

  /* a row pointer read into a local */
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++) {
    float *r = q[i];
    for (j = 0; j < M; j++) r[j] += p[i][j];
  }

  /* rows on the stack */
  float s0[M], s1[M], s2[M], s3[M];
  float *st[4] = {s0, s1, s2, s3};
  float **sp = malloc(4 * sizeof(float *));
  for (i = 0; i < 4; i++) sp[i] = st[i];
#pragma omp parallel for private(j)
  for (i = 0; i < 4; i++)
    for (j = 0; j < M; j++) sp[i][j] = i * j + 0.5f;

  /* packed rows, written, sharing a block with another argument */
  float *q0 = q[0];
#pragma omp parallel for private(j)
  for (i = 1; i < N; i++)
    for (j = 0; j < M; j++) q[i][j] += q0[j] * 0.5f;

  double s = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) s += (q[i][j] + p[i][j]) * (i + 1) + blk[i * M + j] - blk2[i * M + j];
  for (j = 0; j < M; j++) s += s0[j] + 2 * s1[j] + 3 * s2[j] + 4 * s3[j];
  printf("%.3f\n", s);
  return 0;
}
