/* ompcl-test: offload=all devlock warn="device lock" */
#include <stdio.h>
#include <stdlib.h>
/* a device-locked critical inside a parallel region of several loops, updating a global struct-like
   pair (minimum and its position) and a heap array element chosen by the data */
static double lo = 1e30;
static int lo_at = -1;

int main(void) {
    int n = 20000, i;
    double *a = malloc(n * sizeof(double));
    int *owner = malloc(16 * sizeof(int));
    for (i = 0; i < 16; i++) owner[i] = -1;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < n; i++) a[i] = (double)((i * 4099) % 8191) - 4000.25;
#pragma omp for
        for (i = 0; i < n; i++) {
#pragma omp critical
            {
                if (a[i] < lo || (a[i] == lo && i < lo_at)) {
                    lo = a[i];
                    lo_at = i;
                }
            }
            int k = ((int)a[i] & 15);
#pragma omp critical (own)
            {
                if (owner[k] < 0 || i < owner[k]) owner[k] = i;
            }
        }
    }
    printf("lo %.2f at %d\n", lo, lo_at);
    for (i = 0; i < 16; i++) printf("%d ", owner[i]);
    printf("\n");
    free(a);
    free(owner);
    return 0;
}
