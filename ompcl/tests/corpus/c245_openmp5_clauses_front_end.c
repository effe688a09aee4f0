/* ompcl-test: offload=some warn="'declare' is not OpenMP 2.0" warn="reduction over 'p' of type 'struct pair'" warn="type '_Complex double'" warn="'lastprivate(conditional:)' is not translated to OpenCL" */
/* Valid OpenMP that ompcl's front end refused (gcc 12's libgomp.c tests reduction-8, pr42029,
 * scan-10, scan-11): a reduction with a `declare reduction` operator, a reduction over a complex
 * variable, `lastprivate(conditional: ...)`, `if` on `for simd`. The regions run where ompcl can
 * run them (the others on the CPU, through the C compiler's OpenMP); results are gcc's. */
#include <stdio.h>
#include <complex.h>
struct pair { int lo, hi; };
#pragma omp declare reduction(maxpair : struct pair : omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi, omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo) initializer(omp_priv = { 1 << 30, -(1 << 30) })
int a[1000];
int main(void) {
    int i, z = -1, s = 0;
    struct pair p = { 1 << 30, -(1 << 30) };
    double _Complex c = 0;
    for (i = 0; i < 1000; i++) a[i] = (i * 37) % 1001 - 500;
#pragma omp parallel for reduction(maxpair : p)
    for (i = 0; i < 1000; i++) {
        if (a[i] > p.hi) p.hi = a[i];
        if (a[i] < p.lo) p.lo = a[i];
    }
#pragma omp parallel for reduction(+ : c)
    for (i = 0; i < 1000; i++) c += a[i] + 2.0 * I;
#pragma omp parallel for lastprivate(conditional : z)
    for (i = 0; i < 1000; i++)
        if (a[i] > 400) z = i;
#pragma omp parallel for simd reduction(+ : s) if (0)
    for (i = 0; i < 1000; i++) s += a[i] * 3;
    printf("%d %d %.1f %.1f %d %d\n", p.lo, p.hi, creal(c), cimag(c), z, s);
    return 0;
}
