/* ompcl-test: offload=all */
#include <stdio.h>
/* OpenMP 5.1's `atomic compare` in the max/min forms gcc 12 accepts (`if (e > x) { x = e; }`,
 * `if (x < e) { x = e; }`, `x = e > x ? e : x;`, `x = x < e ? e : x;` and the min forms) on int,
 * unsigned, long, unsigned long, float and double scalars and array elements with data-dependent
 * subscripts: OpenCL atomic max/min on the device (atomic_max/atomic_min, atom_max/atom_min or
 * a compare-and-swap loop), the CPU runtime's atomic lock on the CPU. Negative values, ties, a
 * private target (a plain update). */
#define N 20000
#define K 5
int data[N];

int main(void)
{
    int i, j;
    int imax = -2147483647 - 1, imin = 2147483647, ih[K];
    unsigned umax = 0u, umin = 4294967295u, uh[K];
    long lmax = -9000000000000000000L, lmin = 9000000000000000000L, lh[K];
    unsigned long ulmax = 0ul, ulmin = 18446744073709551615ul;
    float fmx = -1e30f, fmn = 1e30f, fh[K];
    double dmx = -1e300, dmn = 1e300, dh[K];
    int privmax = 0;
    for (i = 0; i < N; i++) data[i] = (int)((i * 7919L) % 20011) - 10000;
    for (j = 0; j < K; j++) {
        ih[j] = -2147483647 - 1;
        uh[j] = 4294967295u;
        lh[j] = -9000000000000000000L;
        fh[j] = 1e30f;
        dh[j] = -1e300;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int v = data[i];
        int k = (v & 0x7fff) % K;
        unsigned uv = (unsigned)v * 2654435761u;
        long lv = (long)v * 1000000007L;
        unsigned long ulv = (unsigned long)lv * 3ul;
        float fv = v * 0.25f;
        double dv = v * 0.125 - 0.0625;
        int mine = 0;
#pragma omp atomic compare
        if (v > imax) { imax = v; }
#pragma omp atomic compare
        if (imin > v) { imin = v; }
#pragma omp atomic compare
        ih[k] = v > ih[k] ? v : ih[k];
#pragma omp atomic compare
        umax = umax < uv ? uv : umax;
#pragma omp atomic compare
        umin = uv < umin ? uv : umin;
#pragma omp atomic compare
        if (uv < uh[k]) { uh[k] = uv; }
#pragma omp atomic compare
        if (lmax < lv) { lmax = lv; }
#pragma omp atomic compare
        lmin = lmin > lv ? lv : lmin;
#pragma omp atomic compare
        if (lv > lh[k]) { lh[k] = lv; }
#pragma omp atomic compare
        if (ulv > ulmax) { ulmax = ulv; }
#pragma omp atomic compare
        ulmin = ulv < ulmin ? ulv : ulmin;
#pragma omp atomic compare
        fmx = fv > fmx ? fv : fmx;
#pragma omp atomic compare
        if (fmn > fv) { fmn = fv; }
#pragma omp atomic compare
        if (fv < fh[k]) { fh[k] = fv; }
#pragma omp atomic compare
        if (dmx < dv) { dmx = dv; }
#pragma omp atomic compare
        dmn = dmn > dv ? dv : dmn;
#pragma omp atomic compare
        dh[k] = dh[k] < dv ? dv : dh[k];
        /* a private target: a plain update */
#pragma omp atomic compare
        if (v > mine) { mine = v; }
        if (mine > 9990) {
#pragma omp atomic
            privmax += 1;
        }
    }
    printf("%d %d %u %u %ld %ld %lu %lu %.9g %.9g %.17g %.17g %d\n", imax, imin, umax, umin, lmax, lmin, ulmax,
           ulmin, fmx, fmn, dmx, dmn, privmax);
    for (j = 0; j < K; j++) printf("%d %u %ld %.9g %.17g\n", ih[j], uh[j], lh[j], fh[j], dh[j]);
    return 0;
}
