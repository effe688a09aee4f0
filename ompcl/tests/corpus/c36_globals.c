/* ompcl-test: offload=all */
#include <stdio.h>
#define NX 300
double grid[NX][NX];
static float vec[NX];
int gscale = 3;
struct prm { double k; int off; } params = {0.5, 2};
int hits[4];
int main(void) {
    int i, j;
    for (i = 0; i < NX; i++) vec[i] = i * 0.1f;
#pragma omp parallel for private(j)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NX; j++)
            grid[i][j] = vec[j] * gscale + params.k * i + params.off;
#pragma omp parallel for
    for (i = 0; i < NX; i++) {
#pragma omp atomic
        hits[i % 4] += 1;
    }
    double s = 0;
    for (i = 0; i < NX; i++)
        for (j = 0; j < NX; j++) s += grid[i][j];
    printf("%.6g %d %d\n", s, hits[0], hits[3]);
    return 0;
}
