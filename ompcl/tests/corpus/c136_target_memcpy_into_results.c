/* ompcl-test: offload=some */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
/* omp_target_memcpy from device memory into part of a block whose newest copy is still a kernel's
 * results on the device (lazy copy-back): the rest of the block keeps the kernel's values. */
#define N (1 << 20)
int main(void) {
    double *a = malloc(N * sizeof(double));
    int i, k;
    for (i = 0; i < N; i++) a[i] = 1;
#pragma omp parallel for private(k)
    for (i = 0; i < N; i++)
        for (k = 0; k < 3; k++) a[i] += i % 7;
    int dev = omp_get_default_device();
    if (omp_get_num_devices() == 0) dev = omp_get_initial_device();
    double v[16];
    for (i = 0; i < 16; i++) v[i] = -i;
    double *dp = omp_target_alloc(sizeof v, dev);
    omp_target_memcpy(dp, v, sizeof v, 0, 0, dev, omp_get_initial_device());
    omp_target_memcpy(a, dp, sizeof v, 100 * sizeof(double), 0, omp_get_initial_device(), dev);
    omp_target_free(dp, dev);
    double s = 0;
    for (i = 0; i < N; i++) s += a[i];
    printf("%.1f %.1f %.1f %.1f\n", a[99], a[100], a[N - 1], s);
    free(a);
    return 0;
}
