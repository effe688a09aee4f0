/* ompcl-test: offload=some */
#include <stdio.h>
#include <omp.h>
/* Threads of a CPU region racing to write arrays a kernel has just read: sending them to the device
 * leaves their pages read-only (host and device equal), so each time step four CPU threads fault
 * on their first write at once; one makes the pages writable and the others find them writable
 * already. A thread that loses that race at the same address step after step must not be taken
 * for a fault that is not ompcl's: NPB LU died so on 3 threads and more (the guard against a
 * fault repeating forever counted losses across steps). The second region stays on the CPU on
 * purpose: it indexes by omp_get_thread_num(). */
#define N 64
#define M 2048
double u[N][M], v[N * M], w[N];
double part[4];

int main(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) u[i][j] = v[i * M + j] = (i + j) % 8;
    for (int step = 0; step < 400; step++) {
#pragma omp parallel for
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int j = 0; j < M; j++) s += u[i][j] * 0.5 + v[i * M + j] * 0.25;
            w[i] = s;
        }
#pragma omp parallel num_threads(4)
        {
            int t = omp_get_thread_num();
#pragma omp barrier
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                u[i][0] = u[i][0] * 0.5 + w[i] / M;
                v[i * M] = v[i * M] * 0.5 + 1.0;
            }
            part[t] += u[t * 16][0] + v[t * 16 * M];
        }
    }
    double s = 0, sv = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) s += u[i][j], sv += v[i * M + j];
    printf("u %.6f v %.6f parts %.6f %.6f %.6f %.6f\n", s, sv, part[0], part[1], part[2], part[3]);
    return 0;
}
