/* ompcl-test: offload=all */
#include <stdio.h>
#include <stdlib.h>
struct vec3 { float x, y, z; };
typedef struct { struct vec3 pos; struct vec3 vel; int id; } particle;
typedef struct { float dt; float drag; } config;
int main(void) {
    int n = 5000, i;
    particle *p = malloc(n * sizeof(particle));
    config cfg = {0.01f, 0.99f};
    for (i = 0; i < n; i++) {
        p[i].pos.x = i; p[i].pos.y = 2 * i; p[i].pos.z = 0;
        p[i].vel.x = 1; p[i].vel.y = -1; p[i].vel.z = i % 3;
        p[i].id = i;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        struct vec3 v = p[i].vel;
        v.x *= cfg.drag; v.y *= cfg.drag; v.z *= cfg.drag;
        p[i].pos.x += v.x * cfg.dt;
        p[i].pos.y += v.y * cfg.dt;
        p[i].pos.z += v.z * cfg.dt;
        p[i].vel = v;
        p[i].id += 1;
    }
    double s = 0;
    long ids = 0;
    for (i = 0; i < n; i++) { s += p[i].pos.x + p[i].pos.y + p[i].pos.z + p[i].vel.z; ids += p[i].id; }
    printf("%.6g %ld\n", s, ids);
    return 0;
}
