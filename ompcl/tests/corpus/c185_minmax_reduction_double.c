/* ompcl-test: offload=all */
#include <stdio.h>
#include <math.h>
/* Array max/min reductions on double elements with data-dependent subscripts, each update a
 * max/min of one element in one of the usual spellings (if, if with a block, the two ternaries,
 * fmax/fmin, mirrored and non-strict comparisons): atomic_reduction.rs makes them atomic
 * max/min updates on the device. Whole arrays, sections and a 2-D array; negative values and
 * ties in the data; every element printed after each region. */
#define N 30000
#define K 13
double data[N];
int bin[N];
double w[K];
double s[40];
double g[4][K];
double w2[K];

static void start(void)
{
    int j, r;
    for (j = 0; j < K; j++) {
        w[j] = -1e300;
        w2[j] = 1e300;
        for (r = 0; r < 4; r++) g[r][j] = (r & 1) ? 1e300 : -1e300;
    }
    /* the section s[10:K] starts at the max's identity for the max regions, others untouched */
    for (j = 0; j < 40; j++) s[j] = (j >= 10 && j < 10 + K) ? -1e300 : (double)j;
}

static void show(const char *what)
{
    int j, r;
    printf("%s:", what);
    for (j = 0; j < K; j++) printf(" %.17g", w[j]);
    printf(" |");
    for (j = 0; j < K; j++) printf(" %.17g", w2[j]);
    printf(" |");
    for (j = 0; j < 40; j++) printf(" %.17g", s[j]);
    printf(" |");
    for (r = 0; r < 4; r++)
        for (j = 0; j < K; j++) printf(" %.17g", g[r][j]);
    printf("\n");
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        data[i] = (double)((int)((i * 7919L) % 20011) - 10000) * 0.125 + 1e-3;
        bin[i] = (int)(((i * 7919L) % 20011 * 7 + i % 3) % K);
    }

    /* whole array, if: max */
    start();
#pragma omp parallel for reduction(max: w)
    for (i = 0; i < N; i++) {
        if (data[i] * 0.75 - 1.5 > w[bin[i]]) w[bin[i]] = data[i] * 0.75 - 1.5;
    }
    show("whole array");

    /* whole array, if: min */
    start();
#pragma omp parallel for reduction(min: w2)
    for (i = 0; i < N; i++) {
        if (data[i] * 0.75 - 1.5 < w2[bin[i]]) w2[bin[i]] = data[i] * 0.75 - 1.5;
    }
    show("whole array");

    /* section, if with a block, mirrored: max */
    start();
#pragma omp parallel for reduction(max: s[10:K])
    for (i = 0; i < N; i++) {
        if (s[10 + bin[i]] < data[i]) { s[10 + bin[i]] = data[i]; }
    }
    show("section");

    /* 2-D, ternary e > x ? e : x: max; ternary x < e ? e : x on the min rows: min */
    start();
#pragma omp parallel for reduction(max: g)
    for (i = 0; i < N; i++) {
        int r = (i % 2) * 2;
        g[r][bin[i]] = data[i] > g[r][bin[i]] ? data[i] : g[r][bin[i]];
    }
    show("2-D");

    /* 2-D min, ternary e < x ? e : x */
    start();
#pragma omp parallel for reduction(min: g[0:4][0:K])
    for (i = 0; i < N; i++) {
        int r = (i % 2) * 2 + 1;
        g[r][bin[i]] = data[i] < g[r][bin[i]] ? data[i] : g[r][bin[i]];
    }
    show("2-D min");

    /* ternary x > e ? x : e (max), x > e ? e : x (min), two arrays */
    start();
#pragma omp parallel for reduction(max: w) reduction(min: w2[0:K])
    for (i = 0; i < N; i++) {
        int b = bin[i];
        w[b] = w[b] > data[i] ? w[b] : data[i];
        w2[b] = w2[b] > data[i] ? data[i] : w2[b];
    }
    show("ternary x > e ? x : e (max)");

    /* non-strict comparisons >= and <= */
    start();
#pragma omp parallel for reduction(max: w) reduction(min: w2)
    for (i = 0; i < N; i++) {
        int b = (bin[i] + 5) % K;
        if (data[i] * 0.75 - 1.5 >= w[b]) w[b] = data[i] * 0.75 - 1.5;
        if (w2[b] >= data[i] * 0.75 - 1.5) w2[b] = data[i] * 0.75 - 1.5;
    }
    show("non-strict comparisons >= and <=");

    /* section min, if guarded by another condition */
    start();
#pragma omp parallel for reduction(min: s[10:K])
    for (i = 0; i < N; i++) {
        if (i % 3 != 0) {
            if (data[i] < s[10 + bin[i]]) s[10 + bin[i]] = data[i];
        }
    }
    show("section min");

    /* fmax/fmin */
    start();
#pragma omp parallel for reduction(max: w) reduction(min: w2)
    for (i = 0; i < N; i++) {
        int b = bin[i];
        w[b] = fmax(w[b], data[i] * 0.75 - 1.5);
        w2[b] = fmin(data[i] * 0.75 - 1.5, w2[b]);
    }
    show("fmax/fmin");

    /* fmax/fmin (double) on the 2-D array */
    start();
#pragma omp parallel for reduction(max: g)
    for (i = 0; i < N; i++) {
        int r = (i % 2) * 2;
        g[r][bin[i]] = fmax(data[i] * 2, g[r][bin[i]]);
    }
    show("fmax/fmin (double) on the 2-D array");
    return 0;
}
