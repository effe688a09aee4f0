// KERNELS: k d
// vstore(a)_half*_rtp/_rtn of float data as PTX cvt.rp/rm.f16.f32 (libclc rounds subnormal results
// toward zero: the CTS's half vstore_half_rtp/rtn).
__kernel void k(__global float *f, __global half *h, __local half *lh, __global float4 *v) {
  size_t i = get_global_id(0);
  vstore_half_rtp(f[i], i, h);
  vstore_half_rtn(f[i], i, lh);
  vstorea_half3_rtn(v[i].xyz, i, h);
  vstore_half3_rtp(v[i].xyz, i, h + 64);
  vstore_half4_rtp(v[i], 0, lh + 16);
  vstorea_half4_rtn(v[i], 1, lh + 16);
  vstore_half_rtz(f[i], i, h + 128);
}
// Double data: rounded to float in the same direction, then to half (cvt.rp/rm.f32.f64 first).
__kernel void d(__global double *f, __global half *h, __global double4 *v) {
  size_t i = get_global_id(0);
  vstore_half_rtp(f[i], i, h);
  vstore_half_rtn(f[i], i, h + 64);
  vstorea_half4_rtn(v[i], i, h + 128);
  vstore_half3_rtp(v[i].xyz, i, h + 256);
}
