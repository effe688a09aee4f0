/* ompcl-test: offload=all devlock warn="device lock" */
#include <stdio.h>
#include <stdlib.h>
/* critical sections that are not one update run under a device lock (NVIDIA sm_70+; elsewhere
   on the CPU): a max with its index (ties broken by the smallest index), two variables updated
   together, and a named critical with its own lock; four launches, so that a missing lock shows
   even on PoCL's CPU device, where few work-items run at the same time */
int main(void) {
    int n = 20000, i, rep, where = -1, count = 0;
    double best = -1e30, sum = 0.0;
    long hist_total = 0;
    int hist[8] = {0};
    double *v = malloc(n * sizeof(double));
    for (i = 0; i < n; i++) v[i] = (double)((i * 7907) % 10007) * 0.5;
    for (rep = 0; rep < 4; rep++)
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double x = v[i];
#pragma omp critical
        {
            if (x > best || (x == best && i < where)) {
                best = x;
                where = i;
            }
        }
        if (i % 3 == 0) {
#pragma omp critical (acc)
            {
                sum += x;
                count++;
            }
        }
#pragma omp critical (hist)
        {
            int b = (int)x % 8;
            hist[b] = hist[b] + 1;
            hist_total += b;
        }
    }
    printf("best %.3f at %d\n", best, where);
    printf("sum %.3f count %d mean %.6f\n", sum, count, sum / count);
    printf("hist");
    for (i = 0; i < 8; i++) printf(" %d", hist[i]);
    printf(" total %ld\n", hist_total);
    free(v);
    return 0;
}
