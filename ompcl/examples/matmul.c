/* MOMP's matrix multiplication (MM): C = A * B, N x N floats, one parallel loop. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 512
#endif

int main(void) {
    float *a = malloc(sizeof(float) * N * N);
    float *b = malloc(sizeof(float) * N * N);
    float *c = malloc(sizeof(float) * N * N);
    int i, j, k;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i * N + j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
            b[i * N + j] = (float)((i * 5 + j * 11) % 13) / 13.0f;
        }
#pragma omp parallel for private(j, k) target(opencl)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            float s = 0.0f;
            for (k = 0; k < N; k++)
                s += a[i * N + k] * b[k * N + j];
            c[i * N + j] = s;
        }
    double sum = 0.0;
    for (i = 0; i < N * N; i++)
        sum += c[i] * (double)((i % 7) + 1);
    printf("matmul N=%d checksum %.6g c[17]=%.6g\n", N, sum, c[17]);
    free(a);
    free(b);
    free(c);
    return 0;
}
