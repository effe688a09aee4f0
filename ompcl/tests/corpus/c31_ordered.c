/* ompcl-test: offload=none warn="'ordered'" */
#include <stdio.h>
int main(void) {
    int i, seq[50], pos = 0;
#pragma omp parallel for ordered schedule(dynamic)
    for (i = 0; i < 50; i++) {
        int v = i * 3;
#pragma omp ordered
        seq[pos++] = v;
    }
    long s = 0;
    for (i = 0; i < 50; i++) s = s * 31 % 1000003 + seq[i];
    printf("%ld\n", s);
    return 0;
}
