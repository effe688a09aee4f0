// KERNELS: at64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void at64(__global long *p, __global ulong *u) {
  atom_add(&p[0], 1L);
  atom_sub(&p[1], 2L);
  atom_inc(&p[2]);
  atom_dec(&p[3]);
  atom_xchg(&p[4], 5L);
  atom_cmpxchg(&p[5], 0L, 7L);
  atom_min(&p[6], -3L);
  atom_max(&p[7], 9L);
  atom_and(&u[0], 0xF0UL);
  atom_or(&u[1], 0x0FUL);
  atom_xor(&u[2], 0xFFUL);
  atom_min(&u[3], 4UL);
  atom_max(&u[4], 4UL);
  atom_add(&u[5], 1UL);
}
