/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* a local variable-length array whose inner dimensions are constants (`double m[n][8]`): a
   pointer to rows in the kernel, on the host and in a target region */
static double run(int n) {
    double m[n][8], t[n][8], s = 0;
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < 8; j++) m[i][j] = i * 0.5 + j;
#pragma omp target teams distribute parallel for map(to: m) map(from: t) private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < 8; j++) t[i][j] = m[i][j] * 2 + m[n - 1 - i][7 - j];
    for (i = 0; i < n; i++)
        for (j = 0; j < 8; j++) s += t[i][j] * (j + 1);
    return s;
}
int main(void) {
    printf("%.2f %.2f\n", run(100), run(37));
    return 0;
}
