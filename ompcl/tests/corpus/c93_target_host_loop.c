/* ompcl-test: offload=some warn="device constructs" runwarn="is mapped to the device by a target data construct" */
#include <stdio.h>
/* a host `parallel for` inside `target data` works on the host's copies of mapped arrays: it runs
   on the CPU (a run-time warning), the target region on the device */
#define N 2048
float a[N], b[N];
int main(void) {
    double s = 0;
    int i;
    for (i = 0; i < N; i++) a[i] = i * 0.5f;
#pragma omp target data map(to: a) map(from: b)
    {
#pragma omp target teams distribute parallel for
        for (i = 0; i < N; i++) b[i] = a[i] * 2.0f;
#pragma omp parallel for reduction(+: s)
        for (i = 0; i < N; i++) s += a[i];
    }
    printf("s=%.1f b[N-1]=%.1f\n", s, b[N - 1]);
    return 0;
}
