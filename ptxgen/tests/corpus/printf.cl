// KERNELS: pf
__kernel void pf(__global const int *a, float f, long l) {
  size_t i = get_global_id(0);
  printf("i=%d a=%d f=%f l=%ld s=%s c=%c x=%x\n", (int)i, a[i], f, l, "str", 'q', 255u);
  printf("double %g\n", (double)f * 2.0);
}
