// KERNELS: sw
__kernel void sw(__global int *p) {
  int x = p[get_global_id(0)];
  switch (x & 3) {
  case 0: x += 10; break;
  case 1: x *= 3; break;
  case 2: x = -x; break;
  default: x = 0;
  }
  p[get_global_id(0)] = x;
}
