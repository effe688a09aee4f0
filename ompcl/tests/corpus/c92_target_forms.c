/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
/* more OpenMP 4.5 device forms: `target parallel` holding two loops, `target teams` holding two
   `distribute` loops (with a reduction), unstructured maps of 2-D sections, `target update to`
   after a host change, a sequential target body, `nowait` + `depend`, `always`, `release`, a
   declare-target function reading a global array */
#define N 256
#define M 32
#pragma omp declare target
double coef[4] = {0.5, 1.5, 2.5, 3.5};
static double poly(double x) { return coef[0] + x * (coef[1] + x * coef[2]); }
#pragma omp end declare target
int main(void) {
    static double a[N][M], b[N][M];
    double s = 0, t = 0;
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            a[i][j] = ((i * M + j) % 17) * 0.125;
            b[i][j] = 0;
        }
#pragma omp target enter data map(to: a[0:N][0:M]) map(alloc: b[0:N][0:M])
#pragma omp target parallel
    {
#pragma omp for
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++) b[i][j] = poly(a[i][j]);
#pragma omp for
        for (i = 0; i < N; i++) b[i][0] += 1.0;
    }
#pragma omp target teams map(tofrom: s) reduction(+: s)
    {
#pragma omp distribute parallel for collapse(2) reduction(+: s)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++) s += b[i][j];
#pragma omp distribute parallel for
        for (i = 0; i < N; i++) a[i][1] = b[i][1] * 2.0;
    }
    printf("s=%.4f\n", s);
#pragma omp target update from(b[0:N][0:M])
    printf("b[3][4]=%.4f b[100][0]=%.4f\n", b[3][4], b[100][0]);
    /* the host changes row 5 and sends it */
    for (j = 0; j < M; j++) a[5][j] = 100.0 + j;
#pragma omp target update to(a[5:1][0:M])
#pragma omp target map(tofrom: t)
    {
        for (j = 0; j < M; j++) t += a[5][j];
    }
    printf("t=%.1f\n", t);
#pragma omp target teams distribute parallel for nowait depend(out: b)
    for (i = 0; i < N; i++) b[i][2] = a[i][2] + a[i][1];
#pragma omp taskwait
#pragma omp target map(always, to: coef)
    {
        for (i = 0; i < 4; i++) coef[i] = coef[i] * 1.0;
    }
#pragma omp target exit data map(from: b[0:N][0:M]) map(release: a[0:N][0:M])
    double c = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) c += b[i][j] * (j + 1);
    printf("checksum=%.4f b[7][2]=%.4f\n", c, b[7][2]);
    return 0;
}
