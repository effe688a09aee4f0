/* ompcl-test: offload=all */
#include <stdio.h>
#define R 64
#define C 48
int main(void) {
    double m[R][C], t[C][R];
    int i, j;
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) m[i][j] = i * 100 + j;
#pragma omp parallel for private(j)
    for (i = 0; i < C; i++)
        for (j = 0; j < R; j++) t[i][j] = m[j][i] * 2;
    double s = 0;
    for (i = 0; i < C; i++)
        for (j = 0; j < R; j++) s += t[i][j] * ((i + j) % 5);
    printf("%.6g %.6g\n", s, t[C - 1][R - 1]);
    return 0;
}
