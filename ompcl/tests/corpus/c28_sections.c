/* ompcl-test: offload=none warn="'parallel sections'" */
#include <stdio.h>
int main(void) {
    long a = 0, b = 0, c = 0;
    int i;
#pragma omp parallel sections private(i)
    {
#pragma omp section
        for (i = 0; i < 1000; i++) a += i;
#pragma omp section
        for (i = 0; i < 2000; i++) b += 2 * i;
#pragma omp section
        c = 42;
    }
    printf("%ld %ld %ld\n", a, b, c);
    return 0;
}
