/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Allocations and frees the translator cannot rewrite: spelled inside macros (PolyBench's
 * POLYBENCH_ALLOC_ARRAY / POLYBENCH_FREE_ARRAY style) and made through function pointers. The
 * blocks (include/c110_alloc.h) must still be known to the runtime (the kernels run on the device,
 * not on the CPU for a pointer "not into memory ompcl knows"), and freeing or growing a block whose
 * results are still on the device (OMPCL_LAZY=1) must neither hang nor lose them. Small (16 KiB) and large vectors:
 * libc keeps the small ones in its heap, where free writes into the block itself. */
#include "include/c110_alloc.h"
static void *(*alloc_fn)(size_t) = ALLOC_FN;
static void (*free_fn)(void *) = FREE_FN;

static double run(int n, int r) {
    int i;
    double *a = malloc(n * sizeof(double)), *b = ALLOC_VEC(n), *c = alloc_fn(n * sizeof(double));
    for (i = 0; i < n; i++) a[i] = (i + r) % 13;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        b[i] = a[i] * 2 + r;
        c[i] = a[i] - r;
    }
    double s = b[n / 2];
    c = GROW_VEC(c, 2 * n); /* moves the kernel's results: they must come along */
    for (i = n; i < 2 * n; i++) c[i] = 1;
    for (i = 0; i < 2 * n; i++) s += c[i] * (i % 5);
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = b[i] + c[i];
    FREE_VEC(b); /* results never read by the host */
    free_fn(c);
    for (i = 0; i < n; i++) s += a[i];
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = a[i] * 0.5 + r; /* left on the device, then freed unread */
    FREE_VEC(a);
    return s;
}

int main(void) {
    double s = 0;
    for (int r = 0; r < 3; r++) s += run(2048, r) + run(1 << 18, r);
    printf("%.1f\n", s);
    return 0;
}
