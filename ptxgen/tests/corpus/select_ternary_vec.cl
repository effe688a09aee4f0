// KERNELS: tern
__kernel void tern(__global int4 *a, __global float2 *f) {
  size_t i = get_global_id(0);
  int4 m = a[i] > (int4)(3);
  a[i] = m ? a[i] : -a[i];
  f[i] = f[i].x > 0 ? f[i] : f[i].yx;
}
