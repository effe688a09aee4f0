/* ompcl-test: offload=all */
#include <stdio.h>
/* Directives inside comments are no directives (NPB's CG keeps disabled variants of its loops in
 * block comments, `#pragma omp for` lines and all): the loop after this comment depends on the
 * iteration before and must stay serial, and the real directives around comments still count. */
#define N 100000
double a[N], b[N];
int main(void) {
    int i;
    a[0] = 1.0;
/* the parallel version would be wrong: each element needs the one before
#pragma omp parallel for
*/
    for (i = 1; i < N; i++) a[i] = a[i - 1] * 0.5 + 1.0;
    // #pragma omp parallel for (a line comment: no directive either)
    for (i = 1; i < N; i++) a[i] = a[i] + a[i - 1] * 1e-6;
#pragma omp parallel for /* a comment inside the directive */ private(i)
    for (i = 0; i < N; i++) b[i] = a[i] * 2.0 + (i % 3); // "/* not a comment start in a string */"
    const char *s = "/*";
    double t = 0;
    for (i = 0; i < N; i++) t += b[i] * (i % 7);
    printf("%.6f %.6f %s */\n", t, a[N - 1], s);
    return 0;
}
