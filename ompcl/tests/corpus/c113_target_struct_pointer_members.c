/* ompcl-test: offload=some warn="pointer member 'next' used in the loop" */
#include <stdio.h>
#include <stdlib.h>
/* Structs with pointer members in target and parallel regions that do not use those members:
   the members are opaque 64-bit integers in the kernel (same size and alignment), so the regions
   run on the device and the pointers come back unchanged. A region that dereferences a pointer
   member reached through an array element (`a[i].next->key`) stays on the host; one copying it to
   another member (`c.p = t.p`) does not. A local struct a target region writes is mapped tofrom
   (only scalars are firstprivate by default): its members come back (before, they did not). */
#define N 100
struct node {
    int key;
    double w[4];
    struct node *next;
    int (*cmp)(int, int);
    char *names[2];
};
typedef struct {
    int a;
    int b[N];
    int *p;
} tstruct;
struct outer {
    struct node n;
    long tag;
};
static int less(int x, int y) { return x < y; }
int main(void) {
    int i, errors = 0;
    int *keep[8];
    struct {
        int a;
        int b[N];
        int *p;
    } single, array[3];
    tstruct t;
    struct node nodes[N];
    struct outer o;
    struct plain { int a; int b[10]; } named;
    single.p = malloc(5 * sizeof(int));
    keep[0] = single.p;
    for (i = 0; i < 3; i++) {
        array[i].p = malloc(5 * sizeof(int));
        keep[i + 1] = array[i].p;
    }
    t.p = malloc(4 * sizeof(int));
    t.p[0] = 42;
    keep[4] = t.p;
    for (i = 0; i < N; i++) {
        nodes[i].key = i;
        nodes[i].next = i + 1 < N ? &nodes[i + 1] : NULL;
        nodes[i].cmp = less;
        nodes[i].names[0] = nodes[i].names[1] = NULL;
    }
    o.n = nodes[3];
    o.tag = 0;
    /* anonymous struct, implicit tofrom map */
#pragma omp target
    {
        int j, k;
        single.a = 1;
        for (j = 0; j < N; j++) single.b[j] = j;
        for (k = 0; k < 3; k++) {
            array[k].a = k + 1;
            for (j = 0; j < N; j++) array[k].b[j] = j * k;
        }
    }
    /* typedef of an anonymous struct, explicit map, a loop */
#pragma omp target teams distribute parallel for map(tofrom: t)
    for (i = 0; i < N; i++) t.b[i] = 2 * i;
    t.a = 9;
    /* named struct with pointer, function pointer and array-of-pointer members */
#pragma omp target parallel for map(tofrom: nodes)
    for (i = 0; i < N; i++) {
        nodes[i].w[0] = nodes[i].key * 0.5;
        nodes[i].w[3] = nodes[i].key + 1.0;
        nodes[i].key *= 3;
    }
    /* a struct holding one, copied whole on the device */
#pragma omp target map(tofrom: o, nodes)
    {
        o.n = nodes[5];
        o.tag = o.n.key + 1;
    }
    /* a pointer member copied to another (the same bytes), not dereferenced */
    tstruct tcopy;
    tcopy.p = NULL;
#pragma omp target map(to: t) map(from: tcopy)
    {
        int j;
        tcopy.a = t.a + 1;
        tcopy.p = t.p;
        for (j = 0; j < N; j++) tcopy.b[j] = t.b[j] + 1;
    }
    errors += tcopy.p != keep[4];
    /* a named struct without pointers, written: implicitly tofrom */
    named.a = 0;
    named.b[3] = 0;
#pragma omp target
    {
        named.a = 2;
        named.b[3] = 4;
    }
    /* a parallel for reading such structs */
    long sum = 0;
#pragma omp parallel for reduction(+: sum)
    for (i = 0; i < N; i++) sum += nodes[i].key + (long)nodes[i].w[3];
    /* dereferencing a pointer member of a struct variable: the member is a pointer of its own
       (c120); one reached through an array element stays on the host */
    int got = 0, got2 = 0;
#pragma omp target map(tofrom: got)
    got = t.p[0] + 1;
#pragma omp target map(tofrom: got2, nodes)
    got2 = nodes[2].next->key;
    errors += single.p != keep[0];
    for (i = 0; i < 3; i++) errors += array[i].p != keep[i + 1];
    errors += t.p != keep[4];
    for (i = 0; i < N; i++) errors += nodes[i].next != (i + 1 < N ? &nodes[i + 1] : NULL) || nodes[i].cmp != less;
    errors += o.n.next != &nodes[6] || o.n.cmp != less;
    long s1 = 0;
    for (i = 0; i < N; i++) s1 += single.b[i] + array[2].b[i] + t.b[i];
    printf("single.a %d array %d %d %d t.a %d s1 %ld\n", single.a, array[0].a, array[1].a, array[2].a, t.a, s1);
    printf("nodes %d %g %g o %d %ld sum %ld got %d %d named %d %d tcopy %d %d errors %d\n", nodes[7].key, nodes[7].w[0], nodes[N - 1].w[3],
           o.n.key, o.tag, sum, got, got2, named.a, named.b[3], tcopy.a, tcopy.b[N - 1], errors);
    return errors != 0;
}
