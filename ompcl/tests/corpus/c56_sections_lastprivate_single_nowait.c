/* ompcl-test: offload=none warn="'sections'" */
#include <stdio.h>
int main(void) {
    int x = 0, y = -1, once = 0, arr[200];
    int i;
#pragma omp parallel num_threads(3)
    {
#pragma omp sections lastprivate(x) nowait
        {
            x = 1;
#pragma omp section
            x = 2;
#pragma omp section
            { x = 3; y = 30; }
        }
#pragma omp single nowait
        once++;
#pragma omp for schedule(guided, 3) nowait
        for (i = 0; i < 200; i++) arr[i] = i;
#pragma omp for schedule(runtime)
        for (i = 0; i < 200; i++) arr[i] += 1;
    }
    long s = 0;
    for (i = 0; i < 200; i++) s += arr[i];
    printf("%d %d %d %ld\n", x, y, once, s);
    return 0;
}
