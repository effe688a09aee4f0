/* ompcl-test: offload=some warn="pointer 'p', which the region sets, takes a value other than a variable's" runwarn="'z' does not point into memory ompcl knows" */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
/* A parallel region that keeps its team across a time loop (Rodinia's hotspot3D, Jacobi solvers):
 * every thread runs the loop and swaps its private pointers, the `omp for` inside shares out each
 * step. The host runs the loop once and launches each step's kernels. Also: a pointer the region
 * sets before its loop, a `master` asking for its thread number, a `barrier`, two loops a step,
 * a region that is only its time loop, Jacobi sweeps with a reduction and a `single` each step;
 * a pointer set to `a + 1`, which keeps its region on the CPU; and pointers to a stack array,
 * which the runtime does not know: that region runs on the CPU, decided before any kernel ran. */
#define N 20000
#define STEPS 7
double x[N], y[N], u[N], un[N];
int main(void) {
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
    double z[N];
    int i, who = -1;
    for (i = 0; i < N; i++) {
        a[i] = (i * 13) % 17;
        b[i] = 0;
        x[i] = i % 9;
        y[i] = 0;
    }
#pragma omp parallel
    {
        int count = 0;
        float *in = a, *out = b;
#pragma omp master
        who = omp_get_thread_num();
        do {
#pragma omp for
            for (int j = 1; j < N - 1; j++) out[j] = 0.25f * in[j - 1] + 0.5f * in[j] + 0.25f * in[j + 1];
            float *t = in;
            in = out;
            out = t;
            count++;
#pragma omp barrier
        } while (count < STEPS);
    }
#pragma omp parallel
    {
        double *src = x, *dst = y;
        for (int s = 0; s < STEPS; s++) {
#pragma omp for nowait
            for (int j = 0; j < N; j++) dst[j] = src[j] * 0.5 + 1.0;
#pragma omp for
            for (int j = 0; j < N; j++) dst[j] += (j % 3);
            double *t = src;
            src = dst;
            dst = t;
        }
    }
    float *p0 = a;
#pragma omp parallel
    {
        float *p = p0 + 1;
#pragma omp for
        for (int j = 0; j < N - 1; j++) b[j] = p[j] * 2.0f;
    }
#pragma omp parallel
    for (int s = 0; s < 5; s++) {
#pragma omp for
        for (int j = 0; j < N; j++) x[j] = y[j] * 0.25 + s;
#pragma omp for
        for (int j = 0; j < N; j++) y[j] = x[j] - 0.5 * s;
    }
    /* Jacobi sweeps until they settle: a reduction into a shared variable each step, every
       thread deciding from it (after the loop's barrier) whether to go on, a `single` resetting it */
    double err = 0.0;
    int iter = 0;
    for (i = 0; i < N; i++) u[i] = (i == 0 || i == N - 1) ? 100.0 : 0.0;
#pragma omp parallel
    {
        int go = 1;
        while (go) {
#pragma omp for reduction(+ : err)
            for (int j = 1; j < N - 1; j++) {
                un[j] = 0.5 * (u[j - 1] + u[j + 1]);
                err += fabs(un[j] - u[j]);
            }
#pragma omp for
            for (int j = 1; j < N - 1; j++) u[j] = un[j];
            go = err > 1.0 && iter < 200;
#pragma omp barrier
#pragma omp single
            {
                err = 0.0;
                iter++;
            }
        }
    }
    for (i = 0; i < N; i++) z[i] = i % 4;
#pragma omp parallel
    {
        double *zz = z;
        for (int s = 0; s < 3; s++) {
#pragma omp for
            for (int j = 0; j < N; j++) zz[j] = zz[j] * 0.5 + x[j];
        }
    }
    double s = 0;
    for (i = 0; i < N; i++) s += a[i] * (i % 5) + b[i] * (i % 3) + x[i] * (i % 7) + y[i] * (i % 2) + z[i] + u[i];
    printf("%.4f %d %d\n", s, who, iter);
    free(a);
    free(b);
    return 0;
}
