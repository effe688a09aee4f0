/* MOMP's N-body: all-pairs gravitational forces, leapfrog steps; bodies are structs on the heap. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef NB
#define NB 2048
#endif
#ifndef STEPS
#define STEPS 4
#endif

typedef struct {
    double x, y, z;
    double vx, vy, vz;
    double m;
} body;

static double soft(double r2) { return 1.0 / sqrt(r2 + 0.01); }

int main(void) {
    body *p = malloc(sizeof(body) * NB);
    double *ax = malloc(sizeof(double) * NB), *ay = malloc(sizeof(double) * NB), *az = malloc(sizeof(double) * NB);
    int i, s;
    const double dt = 0.001;
    for (i = 0; i < NB; i++) {
        p[i].x = (double)((i * 37) % 101) / 101.0;
        p[i].y = (double)((i * 53) % 103) / 103.0;
        p[i].z = (double)((i * 71) % 107) / 107.0;
        p[i].vx = p[i].vy = p[i].vz = 0.0;
        p[i].m = 1.0 + (i % 3);
    }
    for (s = 0; s < STEPS; s++) {
#pragma omp parallel for
        for (i = 0; i < NB; i++) {
            double fx = 0, fy = 0, fz = 0;
            int j;
            for (j = 0; j < NB; j++) {
                double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
                double inv = soft(dx * dx + dy * dy + dz * dz);
                double f = p[j].m * inv * inv * inv;
                fx += f * dx;
                fy += f * dy;
                fz += f * dz;
            }
            ax[i] = fx;
            ay[i] = fy;
            az[i] = fz;
        }
#pragma omp parallel for
        for (i = 0; i < NB; i++) {
            p[i].vx += dt * ax[i];
            p[i].vy += dt * ay[i];
            p[i].vz += dt * az[i];
            p[i].x += dt * p[i].vx;
            p[i].y += dt * p[i].vy;
            p[i].z += dt * p[i].vz;
        }
    }
    double e = 0;
    for (i = 0; i < NB; i++)
        e += 0.5 * p[i].m * (p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz) + p[i].x + p[i].y + p[i].z;
    printf("nbody n=%d steps=%d checksum %.6g\n", NB, STEPS, e);
    free(p);
    free(ax);
    free(ay);
    free(az);
    return 0;
}
