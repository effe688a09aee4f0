/* ompcl-test: offload=some warn="a data race in the program" */
#include <stdio.h>
#include <stdlib.h>
/* Loops whose every iteration stores into a shared element at an index that does not depend on
 * the loop variable, and never reads it (a flag, "the last one to get here", SOLLVE's
 * `order[i] = ticket` in a `target teams distribute` over j): the iterations race only on which
 * store lands last, so the element ends up with one iteration's value, on a GPU as on CPU threads
 * (races.rs). These run on the device. Elements of char, short, int, long, float and double;
 * subscripts a variable, a constant, an expression of invariants, 2-D; in
 * `parallel for`, `target teams distribute`, `target parallel for` and `target teams distribute
 * parallel for`. A value that depends on the iteration is printed only as "in range". The last
 * loop reads the element it stores (`if (hit[k] < v) hit[k] = v`): a true race, on the CPU. */
#define N 4000
static char cflag[4];
static short sflag[3][5];
static int order[8], hit[4];
static long lflag[6];
static float fl[2];
static double dl[3];
static int data[16];

int main(void) {
    int i, k = 2, m = 3;
    int *heap = malloc(8 * sizeof(int));
    for (i = 0; i < 8; i++) heap[i] = 0;
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        cflag[k] = 'y';
        sflag[1][m + 1] = 7;
        lflag[k * 2 + 1] = 123456789012L;
        fl[1] = 0.5f;
        dl[m - 1] = 2.25;
        data[m * 4] = 5;
        heap[k + 3] = i; /* one iteration's i */
    }
    printf("%c %d %ld %g %g %d %d\n", cflag[2], sflag[1][4], lflag[5], fl[1], dl[2], data[12],
           heap[5] >= 0 && heap[5] < N);
    for (int t = 0; t < 8; t++) {
#pragma omp target teams distribute map(tofrom: order)
        for (int j = 0; j < 256; j++) {
            int mine = j * 3 + t;
            order[t] = mine;
        }
    }
    int ok = 1;
    for (i = 0; i < 8; i++) ok &= order[i] % 3 == i % 3 && order[i] >= i && order[i] < 256 * 3 + i;
    printf("order in range: %d\n", ok);
#pragma omp target parallel for map(tofrom: lflag, dl)
    for (i = 0; i < N; i++) {
        if (i % 2 == 0) lflag[0] = -5; /* only some iterations store: still one of their values */
        dl[0] = 1.0 / 8;
    }
#pragma omp target teams distribute parallel for map(tofrom: sflag)
    for (i = 0; i < N; i++) sflag[2][0] = (short)(k * 100);
    printf("%ld %g %d\n", lflag[0], dl[0], sflag[2][0]);
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int v = i % 10;
        if (hit[k] < v) hit[k] = v; /* read and store: a race that stays on the CPU */
    }
    printf("%d\n", hit[2]);
    free(heap);
    return 0;
}
