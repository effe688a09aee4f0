/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 7000, i;
    unsigned char *img = malloc(n);
    short *d = malloc(n * sizeof(short));
    char bias = -3;
    for (i = 0; i < n; i++) img[i] = (unsigned char)(i * 37);
#pragma omp parallel for
    for (i = 1; i < n; i++) d[i] = (short)(img[i] - img[i - 1] + bias);
    d[0] = 0;
    long s = 0;
    for (i = 0; i < n; i++) s += d[i] * (i % 9);
    printf("%ld\n", s);
    return 0;
}
