#include <stdio.h>
#include <math.h>
/* Max/min updates in the forms ompcl reads that gcc's `atomic compare` does not take (an `if`
 * without braces, `>=`/`<=`, the target in the first arm of the ternary, fmax/fmin), under
 * `atomic compare` and in array max/min reductions: every one becomes an OpenCL atomic max/min.
 * gcc builds it only without -fopenmp, the serial run whose output the parallel one must give. */
#define N 20000
#define K 7
int data[N];
int hi[K];
long lhi[K];
float flo[K];
double dlo[K];

int main(void)
{
    int i, j;
    int imax = -2147483647 - 1;
    long lmin = 9000000000000000000L;
    float fmx = -1e30f;
    double dmn = 1e300;
    for (i = 0; i < N; i++) data[i] = (int)((i * 7919L) % 20011) - 10000;
    for (j = 0; j < K; j++) {
        hi[j] = -2147483647 - 1;
        lhi[j] = -9000000000000000000L;
        flo[j] = 1e30f;
        dlo[j] = 1e300;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int v = data[i];
#pragma omp atomic compare
        if (v >= imax) imax = v;
#pragma omp atomic compare
        lmin = lmin < v * 1000003L ? lmin : v * 1000003L;
#pragma omp atomic compare
        fmx = fmaxf(fmx, v * 0.5f);
#pragma omp atomic compare
        if (dmn >= v * 0.25) dmn = v * 0.25;
    }
#pragma omp parallel for reduction(max: hi, lhi) reduction(min: flo[0:K], dlo)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0x7fff) % K;
        if (data[i] >= hi[k]) hi[k] = data[i];
        lhi[k] = lhi[k] > data[i] * 3L ? lhi[k] : data[i] * 3L;
        flo[k] = fminf(data[i] * 0.5f, flo[k]);
        if (dlo[k] > data[i] * 0.125) {
            dlo[k] = data[i] * 0.125;
        }
    }
    printf("%d %ld %.9g %.17g\n", imax, lmin, fmx, dmn);
    for (j = 0; j < K; j++) printf("%d %ld %.9g %.17g\n", hi[j], lhi[j], flo[j], dlo[j]);
    return 0;
}
