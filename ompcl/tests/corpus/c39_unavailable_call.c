/* ompcl-test: offload=none warn="'printf'" */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int i, a[8];
#pragma omp parallel for ordered
    for (i = 0; i < 8; i++) {
        a[i] = i * i;
#pragma omp ordered
        printf("item %d\n", a[i]);
    }
    int n = 1000;
    double *v = malloc(n * sizeof(double));
    srand(1);
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        if (i == n) printf("never\n");
        v[i] = i * 0.5;
    }
    double s = 0;
    for (i = 0; i < n; i++) s += v[i];
    printf("%.6g\n", s);
    return 0;
}
