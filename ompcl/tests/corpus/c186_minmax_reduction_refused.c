/* ompcl-test: offload=none warn="'a' is written other than by a max update of an element" warn="'b' is read in the loop other than by its max updates" warn="an update of 'c' is a min (the clause's operation is max)" warn="'d' is written other than by a max update of an element" warn="a subscript or operand of an update of 'e' reads it" warn="'u' is written other than by a max update of an element" warn="'m' is written other than by a min update of an element" warn="'fi' is written other than by a max update of an element" */
#include <stdio.h>
/* Array max/min reductions that atomic_reduction.rs leaves as reductions (the regions stay on the
 * CPU, with the reason in the warning, and still give gcc's result): a `+=` next to the max
 * updates of one array, a read of the array, a min update under a max clause, char elements
 * (compared in int, C's promotion: no max/min update of a char), an operand that reads the array
 * (half the neighbour's value, below every bin's maximum, so the result does not depend on how
 * the iterations are shared), a comparison in a wider type than the element's (unsigned against
 * long: converting the operand to unsigned would not keep the order), a max made by a macro, an
 * int element compared with a float (which rounds it). */
#define N 5000
#define K 7
#define MIN(x, y) ((x) < (y) ? (x) : (y))
int data[N];
int a[K], b[K], c[K], e[K], m[K], fi[K];
char d[K];
unsigned u[K];
long lv[N];

int main(void)
{
    int i, j, hits = 0;
    for (i = 0; i < N; i++) {
        data[i] = (int)((i * 7919L) % 10007) - 5000;
        lv[i] = (long)data[i] * 3;
    }
    for (j = 0; j < K; j++) {
        a[j] = b[j] = c[j] = e[j] = -100000;
        m[j] = 100000;
        fi[j] = 16777215 + j;
        d[j] = -100;
        u[j] = 7;
    }
    /* a `+=` of zero (data never exceeds 100000) next to the max update */
#pragma omp parallel for reduction(max: a)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        if (data[i] > a[k]) a[k] = data[i];
        a[k] += data[i] > 100000;
    }
    /* a read of b (never true) besides its max update */
#pragma omp parallel for reduction(max: b) reduction(+: hits)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        if (data[i] > b[k]) b[k] = data[i];
        if (b[k] > 1000000) hits++;
    }
    /* a min update under a max clause (a clamp far above the data: it never applies) */
#pragma omp parallel for reduction(max: c[0:K])
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        if (data[i] > c[k]) c[k] = data[i];
        if (c[k] > data[i] + 20000) c[k] = data[i] + 20000;
    }
    /* char elements */
#pragma omp parallel for reduction(max: d)
    for (i = 0; i < N; i++) {
        char v = (char)(data[i] % 100);
        if (v > d[(data[i] & 0xff) % K]) d[(data[i] & 0xff) % K] = v;
    }
    /* the operand reads the array */
#pragma omp parallel for reduction(max: e)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        if (e[(k + 1) % K] / 2 > e[k]) e[k] = e[(k + 1) % K] / 2;
        if (data[i] > e[k]) e[k] = data[i];
    }
    /* unsigned elements compared with a long */
#pragma omp parallel for reduction(max: u)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        if (lv[i] > u[k]) u[k] = lv[i];
    }
    /* a min made by a macro */
#pragma omp parallel for reduction(min: m)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        m[k] = MIN(m[k], data[i]);
    }
    /* an int element against a float: 16777217 > 16777216.0f is false in C */
#pragma omp parallel for reduction(max: fi)
    for (i = 0; i < N; i++) {
        int k = (data[i] & 0xff) % K;
        float f = 16777216.0f + (float)(data[i] & 3) * 2.0f;
        if (f > fi[k]) fi[k] = f;
    }
    for (j = 0; j < K; j++)
        printf("%d %d %d %d %d %u %d %d\n", a[j], b[j], c[j], (int)d[j], e[j], u[j], m[j], fi[j]);
    printf("hits %d\n", hits);
    return 0;
}
