/* ompcl-test: offload=none warn="'ordered'" */
#include <stdio.h>
int main(void) {
    int i, order[64], n = 0;
#pragma omp parallel for ordered schedule(static, 2) num_threads(4)
    for (i = 63; i >= 0; i--) {
        if (i % 3 == 0) {
#pragma omp ordered
            order[n++] = i;
        }
    }
    long h = 0;
    for (i = 0; i < n; i++) h = h * 7 + order[i];
    printf("%d %ld\n", n, h % 1000000007);
    return 0;
}
