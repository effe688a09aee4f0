/* Allocation macros of c110_alloc_through_macros.c: spelled in a header, as PolyBench spells its
 * POLYBENCH_ALLOC_ARRAY / POLYBENCH_FREE_ARRAY, so the translator cannot rewrite the calls. */
#include <stdlib.h>
#define ALLOC_VEC(n) ((double *)malloc((n) * sizeof(double)))
#define FREE_VEC(x) free((void *)(x))
#define GROW_VEC(x, n) ((double *)realloc((x), (n) * sizeof(double)))
#define ALLOC_FN malloc
#define FREE_FN free
