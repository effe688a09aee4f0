/* ompcl-test: offload=all warn="device constructs" */
#include <stdio.h>
#include <omp.h>
/* firstprivate and lastprivate arrays (fixed size) in kernels: each work-item's copy starts as the
   original (firstprivate), the last iteration's copy is the array's value after the loop
   (lastprivate), also when the array is mapped by an enclosing target data (the device copy is
   written, and comes back at its end) and when it is a global */
#define N 1000
int g[3];
int main(void) {
    int a[N], b[N], c[N], d[N], i;
    int fp[10], lp[2], both[4];
    long sum = 0;
    for (i = 0; i < N; i++) { a[i] = 1; b[i] = i; c[i] = i % 10; d[i] = 0; }
    for (i = 0; i < 10; i++) fp[i] = i;
    for (i = 0; i < 4; i++) both[i] = 100 + i;
    lp[0] = lp[1] = -1;
    g[0] = g[1] = g[2] = -5;
#pragma omp parallel for firstprivate(fp)
    for (i = 0; i < N; i++) {
        fp[0] = fp[1 + i % 9] + i;
        d[i] = fp[0] * 2 + fp[9];
    }
    for (i = 0; i < N; i++) sum += d[i] * (i % 7 + 1);
    printf("fp %ld %d %d\n", sum, fp[0], fp[9]);
#pragma omp parallel for lastprivate(lp, g)
    for (i = 0; i < N; i++) {
        lp[0] = a[i] + b[i];
        lp[1] = b[i] * c[i];
        g[0] = i; g[1] = 2 * i; g[2] = 3 * i;
    }
    printf("lp %d %d g %d %d %d\n", lp[0], lp[1], g[0], g[1], g[2]);
#pragma omp parallel for firstprivate(both) lastprivate(both)
    for (i = 0; i < N; i++) {
        both[0] = both[1] + i;
        both[2] = both[3] * 2 + i;
    }
    printf("both %d %d %d %d\n", both[0], both[1], both[2], both[3]);
    /* target: a league kernel (team queries), firstprivate array initialised from the host */
    int nt[N];
#pragma omp target teams distribute firstprivate(fp) map(tofrom: d, nt) map(to: a, b)
    for (i = 0; i < N; i++) {
        nt[i] = omp_get_num_teams();
        fp[0] = a[i] + b[i] + fp[1 + i % 9];
        d[i] = fp[0] * 2;
    }
    sum = 0;
    for (i = 0; i < N; i++) sum += d[i] + (nt[i] > 0);
    printf("target fp %ld %d\n", sum, fp[3]);
    /* lastprivate array mapped by target data: the device copy is written, copied back at the end */
    lp[0] = lp[1] = 0;
#pragma omp target data map(to: a, b, c) map(tofrom: lp)
    {
#pragma omp target teams distribute lastprivate(lp)
        for (i = 0; i < N; i++) {
            lp[0] = a[i] + b[i] + c[i];
            lp[1] = (a[i] + b[i]) * c[i];
        }
    }
    printf("target lp %d %d\n", lp[0], lp[1]);
    lp[0] = lp[1] = 0;
#pragma omp target parallel for lastprivate(lp) map(to: a, b)
    for (i = 0; i < N; i++) {
        lp[0] = a[i] - b[i];
        lp[1] = i;
    }
    printf("target lp2 %d %d\n", lp[0], lp[1]);
    return 0;
}
