// KERNELS: nothing
__kernel void nothing(void) {}
