/* ompcl-test: offload=none warn="threadprivate" */
#include <stdio.h>
int counter = 5;
#pragma omp threadprivate(counter)
int main(void) {
    int out[8] = {0}, i;
    counter = 10;
#pragma omp parallel for copyin(counter)
    for (i = 0; i < 8; i++) {
        counter += 1;
        out[i] = i * 100;
    }
    long s = 0;
    for (i = 0; i < 8; i++) s += out[i];
    printf("%ld %d\n", s, counter);
    return 0;
}
