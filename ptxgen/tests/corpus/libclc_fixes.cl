// KERNELS: m
// libclc fixes: sinpi/cospi/tanpi/atanpi signed zeros, acospi(NaN), smoothstep(double, double, double2)
// (undefined in libclc), convert_float*_rt[nzp] / convert_double*_rt[nzp] as PTX conversions.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void m(__global float *f, __global double *d, __global float4 *f4, __global double2 *d2, __global uint *u,
                __global long *l, __global ulong2 *ul, __global double *e0) {
  size_t i = get_global_id(0);
  f[i] = sinpi(f[i]) + cospi(f[i+1]) + tanpi(f[i+2]);
  d[i] = acospi(d[i]) + atanpi(d[i+1]) + tanpi(d[i+2]);
  f4[i] = tanpi(f4[i]);
  d2[i] = smoothstep(e0[0], e0[1], d2[i]);
  f[i+3] = convert_float_rtn(u[i]) + convert_float_rtz(l[i]);
  f4[i+1] = convert_float4_rtp(convert_uint4(f4[i+2]));
  d2[i+1] = convert_double2_rtn(ul[i]) + convert_double2(ul[i+1]);
  f[i+4] = convert_float_rtp(d[i+4]);
}
