/* ompcl-test: offload=some serial warn="a data race in the program" */
#include <stdio.h>
/* Accumulation loops (interchange.rs) that are an if's or a loop's own statement (no braces) are
 * not split: the added loop would run outside the if or the loop. Here the if is false and the
 * outer loop runs no iteration, so the program must leave y as it was; the braced form is split. */
#define NX 20
#define NY 30
static float A[NX][NY], y[NY];
int main(int argc, char **argv) {
    int i, j, t;
    int flag = argc > 5; /* false */
    int rounds = argc - 1; /* 0 */
    (void)argv;
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) A[i][j] = (float)((i + 2 * j) % 5);
    for (j = 0; j < NY; j++) y[j] = (float)j;
    if (flag)
#pragma omp parallel for private(j)
        for (i = 0; i < NX; i++)
            for (j = 0; j < NY; j++) y[j] = y[j] + A[i][j];
    for (t = 0; t < rounds; t++)
#pragma omp parallel for private(j)
        for (i = 0; i < NX; i++)
            for (j = 0; j < NY; j++) y[j] = y[j] + 2 * A[i][j];
    if (!flag) {
#pragma omp parallel for private(j)
        for (i = 0; i < NX; i++)
            for (j = 0; j < NY; j++) y[j] = y[j] + 3 * A[i][j];
    }
    float s = 0;
    for (j = 0; j < NY; j++) s += y[j] * (j + 1);
    printf("%.2f %.2f %.2f\n", s, y[0], y[NY - 1]);
    return 0;
}
