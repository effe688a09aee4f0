/* ompcl-test: offload=all devlock warn="device lock" */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 10000, i, where = -1;
    double best = -1e30;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double v = (double)((i * 7907) % 10007);
#pragma omp critical
        {
            if (v > best || (v == best && i < where)) {
                best = v;
                where = i;
            }
        }
    }
    printf("%.6g %d\n", best, where);
    return 0;
}
