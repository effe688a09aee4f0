/* Issue 11, bug 3: an array parameter (`float C[NI][NJ]`) is a pointer, not an 8-byte object. The
   region was offloaded copying sizeof(C) = 8 bytes each way: wrong values, exit code 0. Global and
   heap arrays passed this way run on the device; a stack array of main (memory ompcl does not
   know) keeps the region on the CPU, with a warning. */
#include <stdio.h>
#include <stdlib.h>
#define NI 64
#define NJ 48
static float G[NI][NJ];

static void scale(int ni, int nj, float C[NI][NJ], float A[][NJ], float alpha) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = alpha * A[i][j] + C[i][j] * 0.5f + i;
}

static double sum(float C[NI][NJ]) {
  double s = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) s += C[i][j] * (1 + (i * 7 + j) % 5);
  return s;
}

int main(void) {
  float (*H)[NJ] = malloc(sizeof(float[NI][NJ]));
  float S[NI][NJ];
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) G[i][j] = H[i][j] = S[i][j] = (float)(i * j % 17) / 3;
  scale(NI, NJ, G, H, 2.0f); /* global array: offloaded */
  scale(NI, NJ, H, G, 3.0f); /* heap array: offloaded */
  scale(NI, NJ, S, G, 1.5f); /* stack array: CPU */
  printf("%.3f %.3f %.3f\n", sum(G), sum(H), sum(S));
  free(H);
  return 0;
}
