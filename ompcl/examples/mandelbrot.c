/* MOMP's Mandelbrot set: escape-time iteration counts for a W x H image; prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

#ifndef W
#define W 1024
#endif
#ifndef H
#define H 768
#endif
#define MAXIT 256

int main(void) {
    int *img = malloc(sizeof(int) * W * H);
    long total = 0;
    int y;
#pragma omp parallel for schedule(dynamic) reduction(+: total) target(opencl)
    for (y = 0; y < H; y++) {
        int x;
        for (x = 0; x < W; x++) {
            double cr = -2.0 + 3.0 * x / W, ci = -1.2 + 2.4 * y / H;
            double zr = 0, zi = 0;
            int it = 0;
            while (it < MAXIT && zr * zr + zi * zi < 4.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2 * zr * zi + ci;
                zr = t;
                it++;
            }
            img[y * W + x] = it;
            total += it;
        }
    }
    long weighted = 0;
    for (y = 0; y < W * H; y++)
        weighted += (long)img[y] * (y % 13);
    printf("mandelbrot %dx%d total %ld weighted %ld\n", W, H, total, weighted);
    free(img);
    return 0;
}
