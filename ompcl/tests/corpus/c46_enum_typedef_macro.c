/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
typedef double real;
typedef enum { RED = 1, GREEN = 2, BLUE = 4 } color;
#define SQR(x) ((x) * (x))
#define SCALE 3
int main(void) {
    int n = 2048, i;
    real *v = malloc(n * sizeof(real));
    uint32_t *h = malloc(n * sizeof(uint32_t));
    color c = GREEN;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        color k = (i % 2) ? RED : BLUE;
        v[i] = SQR((real)i) * SCALE + k + c;
        h[i] = (uint32_t)i * 2654435761u;
    }
    real s = 0;
    uint32_t x = 0;
    for (i = 0; i < n; i++) { s += v[i]; x ^= h[i]; }
    printf("%.6g %u\n", s, x);
    return 0;
}
