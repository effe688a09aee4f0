/* ompcl-test: offload=some warn="device constructs" */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
/* target region forms: target + teams + distribute parallel for chains, collapse, simd,
   a sequential target body (one work-item), declare target functions, if(), device memory
   routines with is_device_ptr */
#define N 64
#define M 48
#pragma omp declare target
static float scale(float x, int k) { return x * (float)(k % 5) + 0.5f; }
#pragma omp end declare target
int main(void) {
    static float g[N][M];
    float v[N];
    long cnt = 0;
    int i, j;
#pragma omp target map(from: g)
#pragma omp teams num_teams(8) thread_limit(64)
#pragma omp distribute parallel for collapse(2)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) g[i][j] = scale((float)(i + j), i * j);
    double s = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) s += g[i][j];
    printf("collapse: %.2f\n", s);
#pragma omp target simd map(from: v)
    for (i = 0; i < N; i++) v[i] = (float)i * 0.25f;
    printf("simd: %g %g\n", v[3], v[N - 1]);
#pragma omp target teams distribute parallel for reduction(+: cnt) map(to: v)
    for (i = 0; i < N; i++)
        if (v[i] > 4.0f) cnt++;
    printf("count: %ld\n", cnt);
    /* a sequential body: one work-item runs it */
    int first = -1;
    float acc = 0;
#pragma omp target map(to: v) map(tofrom: acc, first)
    {
        for (i = 0; i < N; i++) {
            acc += v[i];
            if (first < 0 && v[i] > 2.0f) first = i;
        }
    }
    printf("sequential: %g %d\n", acc, first);
    /* if(false): the host runs it */
    int n = 0;
#pragma omp target parallel for if(n > 0) map(tofrom: v)
    for (i = 0; i < N; i++) v[i] += 1.0f;
    printf("if: %g\n", v[5]);
    /* device memory */
    int dev = omp_get_default_device();
    if (omp_get_num_devices() == 0) dev = omp_get_initial_device();
    float *dp = omp_target_alloc(N * sizeof(float), dev);
    omp_target_memcpy(dp, v, N * sizeof(float), 0, 0, dev, omp_get_initial_device());
#pragma omp target teams distribute parallel for is_device_ptr(dp) device(dev)
    for (i = 0; i < N; i++) dp[i] = dp[i] * 3.0f;
    float w[N];
    omp_target_memcpy(w, dp, N * sizeof(float), 0, 0, omp_get_initial_device(), dev);
    omp_target_free(dp, dev);
    printf("device memory: %g %g\n", w[0], w[N - 1]);
    return 0;
}
