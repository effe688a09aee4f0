/* ompcl-test: offload=all */
#include <stdio.h>
/* Array max/min reductions on unsigned elements with data-dependent subscripts, each update a
 * max/min of one element in one of the usual spellings (if, if with a block, the two ternaries,
 * mirrored and non-strict comparisons): atomic_reduction.rs makes them atomic
 * max/min updates on the device. Whole arrays, sections and a 2-D array; negative values and
 * ties in the data; every element printed after each region. */
#define N 30000
#define K 13
unsigned data[N];
int bin[N];
unsigned w[K];
unsigned s[40];
unsigned g[4][K];
unsigned w2[K];

static void start(void)
{
    int j, r;
    for (j = 0; j < K; j++) {
        w[j] = 0u;
        w2[j] = 4294967295u;
        for (r = 0; r < 4; r++) g[r][j] = (r & 1) ? 4294967295u : 0u;
    }
    /* the section s[10:K] starts at the max's identity for the max regions, others untouched */
    for (j = 0; j < 40; j++) s[j] = (j >= 10 && j < 10 + K) ? 0u : (unsigned)j;
}

static void show(const char *what)
{
    int j, r;
    printf("%s:", what);
    for (j = 0; j < K; j++) printf(" %u", w[j]);
    printf(" |");
    for (j = 0; j < K; j++) printf(" %u", w2[j]);
    printf(" |");
    for (j = 0; j < 40; j++) printf(" %u", s[j]);
    printf(" |");
    for (r = 0; r < 4; r++)
        for (j = 0; j < K; j++) printf(" %u", g[r][j]);
    printf("\n");
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        data[i] = (unsigned)((i * 7919L) % 60013) * 65537u;
        bin[i] = (int)(((i * 7919L) % 20011 * 7 + i % 3) % K);
    }

    /* whole array, if: max */
    start();
#pragma omp parallel for reduction(max: w)
    for (i = 0; i < N; i++) {
        if ((data[i] ^ 0x5a5au) > w[bin[i]]) w[bin[i]] = (data[i] ^ 0x5a5au);
    }
    show("whole array");

    /* whole array, if: min */
    start();
#pragma omp parallel for reduction(min: w2)
    for (i = 0; i < N; i++) {
        if ((data[i] ^ 0x5a5au) < w2[bin[i]]) w2[bin[i]] = (data[i] ^ 0x5a5au);
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
        if ((data[i] ^ 0x5a5au) >= w[b]) w[b] = (data[i] ^ 0x5a5au);
        if (w2[b] >= (data[i] ^ 0x5a5au)) w2[b] = (data[i] ^ 0x5a5au);
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
    return 0;
}
