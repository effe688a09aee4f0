/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 4096, i;
    float r = 0.0f;
    float *v = malloc(n * sizeof(float));
    for (i = 0; i < n; i++) v[i] = (float)((i % 10) * 0.5f);
#pragma omp parallel for reduction(+: r)
    for (i = 0; i < n; i++)
        r = r + v[i];
    printf("reduction(+) = %.5g\n", r);
    free(v);
    return 0;
}
