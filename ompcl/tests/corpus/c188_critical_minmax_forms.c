/* ompcl-test: offload=all */
#include <stdio.h>
#include <math.h>
/* `critical` sections of one max/min update in the spellings minmax_update.rs reads besides the
 * `if` (which became atomic before): the ternaries in both orders and fmax/fmin on a floating
 * target, on scalars and on elements with data-dependent subscripts; each becomes an OpenCL
 * atomic max/min. */
#define N 20000
#define K 6
int data[N];

int main(void)
{
    int i, j;
    int im = -2147483647 - 1, ih[K];
    long lm = 9000000000000000000L;
    float fm = -1e30f, fh[K];
    double dm = 1e300;
    for (i = 0; i < N; i++) data[i] = (int)((i * 7919L) % 20011) - 10000;
    for (j = 0; j < K; j++) {
        ih[j] = 2147483647;
        fh[j] = -1e30f;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int v = data[i];
        int k = (v & 0x7fff) % K;
#pragma omp critical
        im = im > v * 3 ? im : v * 3;
#pragma omp critical
        ih[k] = ih[k] > v ? v : ih[k];
#pragma omp critical
        lm = lm < v * 1000003L ? lm : v * 1000003L;
#pragma omp critical
        fm = fmaxf(fm, v * 0.5f);
#pragma omp critical
        {
            fh[k] = fmaxf(v * 0.25f, fh[k]);
        }
#pragma omp critical
        dm = fmin(dm, v * 0.125 + 0.5);
    }
    printf("%d %ld %.9g %.17g\n", im, lm, fm, dm);
    for (j = 0; j < K; j++) printf("%d %.9g\n", ih[j], fh[j]);
    return 0;
}
