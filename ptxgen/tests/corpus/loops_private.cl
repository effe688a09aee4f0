// KERNELS: privarr
__kernel void privarr(__global int *p, uint n) {
  int tmp[32];
  for (uint i = 0; i < 32; i++) tmp[i] = p[(get_global_id(0) + i) % n];
  int s = 0;
  for (uint i = 0; i < n % 32; i++) s += tmp[(i * 7) % 32];
  p[get_global_id(0)] = s;
}
