/* helpers with bodies in a user header: they go into the kernel source too */
#ifndef C67_HELPERS_H
#define C67_HELPERS_H
#define C67_SCALE 3.0
typedef struct { float lo, hi; } c67_range;
static inline float c67_clamp(float v, c67_range r) { return v < r.lo ? r.lo : (v > r.hi ? r.hi : v); }
static double c67_poly(const double *c, int n, double x) {
    double s = 0;
    int k;
    for (k = n - 1; k >= 0; k--) s = s * x + c[k];
    return s * C67_SCALE;
}
#endif
