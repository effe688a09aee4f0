/* ompcl-test: offload=some warn="firstprivate pointer 'q' is assigned inside the loop" */
#include <stdio.h>
#include <stdlib.h>
/* Pointers in firstprivate: the kernel reads and writes the memory the host's pointer points into
 * (a plain pointer, one into the middle of an array, a heap one); a copy moved inside the loop,
 * and a lastprivate pointer, keep their loops on the CPU. */
#define N 4096
float a[N + 8], b[N];
int main(void) {
    int i;
    float *h = malloc(N * sizeof(float));
    for (i = 0; i < N + 8; i++) a[i] = (i * 7) % 13;
    float *in = a + 4, *out = b;
#pragma omp parallel for firstprivate(in, out)
    for (i = 1; i < N - 1; i++) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
    float *src = b, *dst = h;
#pragma omp parallel for firstprivate(src) firstprivate(dst) schedule(static)
    for (i = 0; i < N; i++) dst[i] = 2.0f * src[i] + 1.0f;
    float *q = a;
#pragma omp parallel for firstprivate(q)
    for (i = 0; i < N; i++) {
        q = a + (i % 8);
        b[i] += *q;
    }
    float *last = a;
#pragma omp parallel for lastprivate(last)
    for (i = 0; i < N; i++) last = a + i;
    double s = 0;
    for (i = 0; i < N; i++) s += b[i] * (i % 5) + h[i] * (i % 3);
    printf("%.6f %ld\n", s, (long)(last - a));
    free(h);
    return 0;
}
