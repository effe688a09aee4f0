/* ompcl-test: offload=all spread="15:1 25:0" */
#include <stdio.h>
/* doitgen's nest: (r, q) pairs spread over work-items by the subscript rule, each accumulating into
 * sum[r][q][p] across the s loop, where p is an enclosing inner loop's variable. The element stays
 * in a register across the s loop (promote.rs: the same expression, whose variables the s loop
 * does not assign). The second nest assigns p inside the s loop: no promotion there, same results. */
#define NR 10
#define NQ 12
#define NP 14
static float A[NR][NQ][NP], C4[NP][NP], sum[NR][NQ][NP], B[NR][NQ][NP];
int main(void) {
    int r, q, p, s;
    for (r = 0; r < NR; r++) for (q = 0; q < NQ; q++) for (p = 0; p < NP; p++) A[r][q][p] = (float)((r * 3 + q * 5 + p) % 7) - 3.0f;
    for (p = 0; p < NP; p++) for (s = 0; s < NP; s++) C4[p][s] = (float)((p * s) % 5) * 0.5f;
#pragma omp parallel for private(q, p, s)
    for (r = 0; r < NR; r++)
        for (q = 0; q < NQ; q++) {
            for (p = 0; p < NP; p++) {
                sum[r][q][p] = 0;
                for (s = 0; s < NP; s++) sum[r][q][p] = sum[r][q][p] + A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < NP; p++) A[r][q][p] = sum[r][q][p];
        }
    int pp;
#pragma omp parallel for private(q, p, s, pp)
    for (r = 0; r < NR; r++)
        for (q = 0; q < NQ; q++)
            for (pp = 0; pp < NP; pp++) {
                p = pp;
                B[r][q][p] = 1;
                for (s = 0; s < NP; s++) {
                    B[r][q][p] += A[r][q][s] * 0.25f;
                    p = (p + 1) % NP;
                }
            }
    double t = 0;
    for (r = 0; r < NR; r++) for (q = 0; q < NQ; q++) for (p = 0; p < NP; p++) t += A[r][q][p] * (p + 1) + B[r][q][p] * (q + 2);
    printf("%.6e %.4f %.4f\n", t, A[NR - 1][NQ - 1][NP - 1], B[2][3][4]);
    return 0;
}
