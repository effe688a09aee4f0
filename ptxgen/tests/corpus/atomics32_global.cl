// KERNELS: at32
__kernel void at32(__global int *p, __global uint *u, __global float *f) {
  atomic_add(&p[0], 1);
  atomic_sub(&p[1], 2);
  atomic_inc(&p[2]);
  atomic_dec(&p[3]);
  atomic_xchg(&p[4], 5);
  atomic_cmpxchg(&p[5], 0, 7);
  atomic_min(&p[6], -3);
  atomic_max(&p[7], 9);
  atomic_and(&u[0], 0xF0u);
  atomic_or(&u[1], 0x0Fu);
  atomic_xor(&u[2], 0xFFu);
  atomic_min(&u[3], 4u);
  atomic_max(&u[4], 4u);
  atomic_xchg(&f[0], 1.5f);
  atom_add(&p[8], 1);
}
