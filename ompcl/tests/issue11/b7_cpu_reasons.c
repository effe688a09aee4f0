/* Regions kept on the CPU, each for another reason: every one must say why, once, at translation
   time (tests/diagnostics.rs). A line `expect-cpu: TEXT` names the reason of the region below it;
   regions without one must be offloaded. */
#include <stdio.h>
#include <omp.h>

static int fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }

int main(void) {
    int n = 1000, i, j, s = 0;
    double a[1000], y[100];
    for (i = 0; i < n; i++) a[i] = i;
    for (j = 0; j < 100; j++) y[j] = 0;
    /* expect-cpu: 'sections' */
#pragma omp parallel
    {
#pragma omp sections
        {
#pragma omp section
            a[0] = 1;
#pragma omp section
            a[1] = 2;
        }
    }
    /* expect-cpu: 'ordered' */
#pragma omp parallel for ordered
    for (i = 0; i < n; i++) {
#pragma omp ordered
        s += i;
    }
    /* expect-cpu: outside any worksharing construct */
#pragma omp parallel
    {
        a[omp_get_thread_num()] += 1;
#pragma omp for
        for (i = 0; i < n; i++) a[i] *= 2;
    }
    /* expect-cpu: 'printf' */
#pragma omp parallel for
    for (i = 0; i < 4; i++) printf("%d\n", i);
    /* expect-cpu: a data race */
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < 100; j++) if (a[i] > 0) y[j] += a[i]; /* under an if: not split (interchange.rs) */
    /* expect-cpu: directives inside a 'critical' */
#pragma omp parallel for
    for (i = 0; i < n; i++) {
#pragma omp critical
        {
            s += 1;
#pragma omp atomic
            a[0] += 1;
        }
    }
    /* expect-cpu: target(pthread) */
#pragma omp parallel for target(pthread)
    for (i = 0; i < n; i++) a[i] += 1;
    /* expect-cpu: recursive function 'fact' */
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = fact(i % 5);
    /* a critical under a device lock: offloaded (a note says where it can run) */
#pragma omp parallel for
    for (i = 0; i < n; i++) {
#pragma omp critical
        {
            if (a[i] > y[0]) {
                y[0] = a[i];
                y[1] = i;
            }
        }
    }
    /* expect-cpu: which a loop before it set */
#pragma omp parallel
    {
        int t = 0, t2;
#pragma omp for
        for (i = 0; i < n; i++) {
            t = i;
            a[i] += t;
        }
        t2 = t * 2;
#pragma omp for
        for (i = 0; i < n; i++) a[i] += t2;
    }
    /* expect-cpu: it calls 'fact' */
#pragma omp parallel
    {
        int f = fact(3);
#pragma omp for
        for (i = 0; i < n; i++) a[i] += f;
    }
#pragma omp parallel
    {
        int m = n / 2, k;
        double w = 0.5;
#pragma omp for
        for (i = 0; i < m; i++)
            for (k = 0; k < 2; k++) a[i] += w * k;
        for (k = 0; k < 3; k++) w += k;
#pragma omp for
        for (i = m; i < n; i++) a[i] += w;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = a[i] * 0.5 + 1;
    printf("%d %g %g\n", s, a[7], y[0]);
    return 0;
}
