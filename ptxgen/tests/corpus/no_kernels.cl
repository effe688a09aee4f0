// KERNELS:
float helper(float x) { return x + 1.0f; }
