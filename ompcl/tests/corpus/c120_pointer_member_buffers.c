/* ompcl-test: offload=some warn="pointer member 'next' used in the loop" */
#include <stdio.h>
#include <stdlib.h>
/* A pointer member of a struct variable used as a pointer in a region (`s.d[i]`, `v.data[i] +=`):
   passed as a pointer of its own (found in the runtime's tables at the launch: a malloc'd block,
   a global, a section mapped by target data), so the region runs on the device; the struct's other
   members come along as before. A member reached through another pointer (`n->next->key`), or
   one of a struct the region sets as a whole, still keeps its region on the host. */
#define N 1000
typedef struct { int n; double *data; int *idx; } vec;
struct S { char p[8]; int a; int b[2]; long c[4]; int *d; };
struct node { int key; struct node *next; };
int gbuf[N];
int main(void) {
    int i;
    vec v;
    v.n = N;
    v.data = malloc(N * sizeof(double));
    v.idx = gbuf;
    for (i = 0; i < N; i++) { v.data[i] = i * 0.5; gbuf[i] = (i * 7) % N; }
#pragma omp parallel for
    for (i = 0; i < v.n; i++) v.data[i] += v.idx[i];
    double s = 0;
    for (i = 0; i < N; i++) s += v.data[i] * (i % 3 + 1);
    printf("vec %.1f\n", s);
#pragma omp target teams distribute parallel for map(tofrom: v.data[0:N]) map(to: v.idx[0:N])
    for (i = 0; i < N; i++) v.data[v.idx[i]] = i;
    s = 0;
    for (i = 0; i < N; i++) s += v.data[i] * (i % 5 + 1);
    printf("target vec %.1f\n", s);
    /* libgomp target-29's shape: a struct passed by value, members and a pointer member's
       section mapped, negative subscripts */
    int d[3] = {18, 19, 20}, err = 0;
    struct S t = {{0}, 11, {12, 13}, {14, 15, 16, 17}, d + 2};
#pragma omp target map(tofrom: t.a, t.b, t.c[1:2], t.d, t.d[-2:3]) map(from: err)
    {
        err = t.a != 11 || t.b[0] != 12 || t.c[2] != 16 || t.d[-2] != 18 || t.d[0] != 20;
        t.a = 35;
        t.b[1] = 37;
        t.d[-2] = 40;
        t.d[-1] = 41;
        t.d[0] = 42;
    }
    printf("struct %d %d %d %d %d %d %d\n", err, t.a, t.b[1], d[0], d[1], d[2], t.d == d + 2);
#pragma omp target data map(to: t.d[-2:3])
    {
#pragma omp target map(from: err)
        err = t.d[-2] + t.d[0];
    }
    printf("in data %d\n", err);
    /* still on the host: a member reached through a pointer */
    struct node *nodes = malloc(4 * sizeof *nodes);
    for (i = 0; i < 4; i++) { nodes[i].key = i * 10; nodes[i].next = i < 3 ? &nodes[i + 1] : NULL; }
    int k = 0;
#pragma omp target map(tofrom: k) map(to: nodes[0:4])
    k = nodes[0].next->key + nodes[1].next->key;
    printf("list %d\n", k);
    /* the struct set as a whole in the region: its member's kernel copy would be stale (host) */
    vec w = {N, v.data, gbuf};
    double r = 0;
#pragma omp target map(tofrom: r) map(to: v.data[0:N], gbuf)
    {
        r = w.data[1];
        w = v;
        w.idx = gbuf;
        r += w.data[2] + w.idx[3];
    }
    printf("reassigned %.1f\n", r);
    return 0;
}
