/* ompcl-test: offload=all */
#include <stdio.h>
double g[37];
int main(void) {
    int loc[13], i, out[100];
    for (i = 0; i < 13; i++) loc[i] = i;
#pragma omp parallel for
    for (i = 0; i < 100; i++) out[i] = (int)(sizeof(g) / sizeof(g[0])) + (int)(sizeof loc / sizeof(loc[0])) + loc[i % 13];
    long s = 0;
    for (i = 0; i < 100; i++) s += out[i];
    printf("%ld\n", s);
}
