/* ompcl-test: offload=some warn="firstprivate 'a' carries values between the iterations a thread runs" */
/* A firstprivate variable read before it is written in an iteration carries the thread's running
 * value (libgomp's omp-parallel-for: with num_threads(2) and a static schedule the last thread's
 * sum is 65): with num_threads it stays on the CPU. Without num_threads the team's size is the
 * implementation's, and one iteration per work-item is a result OpenMP allows (corpus c03, c68).
 * Firstprivate variables written first, or only read, offload. */
#include <stdio.h>
int main(void) {
    int i, a = 30, b = 5, c = 0;
    double s[100];
#pragma omp parallel for firstprivate(a) lastprivate(a) num_threads(2) schedule(static)
    for (i = 0; i < 10; i++) a = a + i;
#pragma omp parallel for firstprivate(b)
    for (i = 0; i < 100; i++) { b = i * 2; s[i] = b + 1; }
#pragma omp parallel for firstprivate(c) lastprivate(c)
    for (i = 0; i < 100; i++) { c = i; if (i & 1) c = c + 1; s[i] += c + a; }
    double t = 0;
    for (i = 0; i < 100; i++) t += s[i];
    printf("a=%d t=%f c=%d\n", a, t, c);
    return 0;
}
