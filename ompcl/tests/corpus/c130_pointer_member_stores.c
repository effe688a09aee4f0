/* ompcl-test: offload=some warn="pointer member 'link' set in the loop (to an address the host would not share)" */
#include <stdio.h>
#include <stdlib.h>
/* Pointers stored into pointer members in kernel code (SOLLVE's linked_list: `temp->next = cur` in
 * a target region). In the kernel source a pointer member is an opaque `ulong` (types.rs), which
 * OpenCL C does not convert a pointer to implicitly (clang: "incompatible pointer to integer
 * conversion"), so the stored value is cast; in a target region it is the device address, as on
 * any device with memory of its own, and the program repairs its host links after copying the
 * nodes back, as SOLLVE's does. Forms: through a pointer (`n->next = cur`), into an array element's
 * member (`nodes[i].next = &nodes[i + 1]`, a conditional `... : NULL`), a struct of two pointer
 * members of different types, NULL stores in a `parallel for` (the same value on the host: also
 * outside target regions). A non-null address stored outside a target region would reach the
 * host, which shares the region's data: that region runs on the CPU, saying why. */
#define NN 12
typedef struct node {
    int data;
    struct node *next;
} node_t;
struct pair {
    double w;
    double *wp;
    struct pair *link;
};

int main(void) {
    int i;
    node_t *head = malloc(sizeof(node_t)), *second = malloc(sizeof(node_t));
    head->data = 1;
    head->next = second; /* linked on the host, linked again on the device */
    second->data = 2;
    second->next = NULL;
    node_t *cur = second;
#pragma omp target enter data map(to: head[:1], second[:1])
#pragma omp target
    {
        cur->data += 10;
        head->next = cur;
    }
    node_t *keep = head->next; /* the host's link */
#pragma omp target exit data map(from: head[:1], second[:1])
    int linked = head->next != NULL; /* the device's link: an address of its own */
    head->next = keep;
    printf("%d %d %d\n", head->data, head->next->data, linked);
    node_t *nodes = malloc(NN * sizeof(node_t));
    for (i = 0; i < NN; i++) {
        nodes[i].data = i;
        nodes[i].next = &nodes[i];
    }
#pragma omp target teams distribute parallel for map(tofrom: nodes[0:NN])
    for (i = 0; i < NN; i++) {
        nodes[i].data *= 3;
        nodes[i].next = i + 1 < NN ? &nodes[i + 1] : NULL;
    }
    int nonnull = 0;
    for (i = 0; i < NN; i++) {
        nonnull += nodes[i].next != NULL;
        nodes[i].next = i + 1 < NN ? &nodes[i + 1] : NULL; /* repaired on the host */
    }
    long sum = 0;
    for (node_t *n = nodes; n; n = n->next) sum += n->data;
    printf("%d %ld\n", nonnull, sum);
    struct pair *ps = malloc(NN * sizeof(struct pair));
    double ws[NN];
    for (i = 0; i < NN; i++) {
        ws[i] = i * 0.5;
        ps[i].w = 0;
        ps[i].wp = &ws[i];
        ps[i].link = &ps[0];
    }
#pragma omp parallel for
    for (i = 0; i < NN; i++) {
        ps[i].w = i * 2.0;
        ps[i].link = NULL;
        if (i % 2) ps[i].wp = 0;
    }
    int nulls = 0;
    double wsum = 0;
    for (i = 0; i < NN; i++) {
        nulls += (ps[i].link == NULL) + (ps[i].wp == NULL);
        wsum += ps[i].w + (ps[i].wp ? *ps[i].wp : 0);
    }
    printf("%d %g\n", nulls, wsum);
#pragma omp parallel for
    for (i = 0; i < NN; i++) ps[i].link = &ps[(i + 1) % NN];
    long hops = 0;
    struct pair *q = &ps[0];
    for (i = 0; i < 3 * NN; i++, q = q->link) hops += q - ps;
    printf("%ld\n", hops);
    free(nodes);
    free(ps);
    free(head);
    free(second);
    return 0;
}
