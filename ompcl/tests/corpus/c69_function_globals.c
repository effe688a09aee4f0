/* ompcl-test: offload=all */
/* Functions called from offloaded loops read and write global arrays and read global scalars
   (issue 11): the globals become extra parameters of each function on the call path. */
#include <stdio.h>
#include <stdlib.h>
#define N 1000
#define M 8
double hist[N];
double grid[N][M];
const double table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int scale = 3;
float *heap;
static int zero(void) { return scale - scale; }
static double lookup(int i) { return table[i % 8] * scale + zero(); }
static void row(int i) {
    for (int j = 0; j < M; j++) grid[i][j] = lookup(i + j) + heap[i];
}
static void work(int i) {
    hist[i] += lookup(i) + i;
    row(i);
}
int main(void) {
    int i;
    heap = (float *)malloc(N * sizeof(float));
    for (i = 0; i < N; i++) heap[i] = i * 0.5f;
#pragma omp parallel for
    for (i = 0; i < N; i++) work(i);
    scale = 5;
#pragma omp parallel for
    for (i = 0; i < N; i++) work(i);
    double s = 0;
    for (i = 0; i < N; i++) {
        s += hist[i] * (i % 7);
        for (int j = 0; j < M; j++) s += grid[i][j] * j;
    }
    printf("%.3f %.3f %.3f\n", s, hist[N - 1], grid[5][3]);
    free(heap);
    return 0;
}
