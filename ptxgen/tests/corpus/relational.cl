// KERNELS: rel
__kernel void rel(__global float4 *a, __global int4 *m, __global int *r) {
  size_t i = get_global_id(0);
  int4 nan = isnan(a[i]);
  int4 inf = isinf(a[i]);
  m[i] = nan | inf | isgreater(a[i], (float4)(1.0f)) | signbit(a[i]);
  a[i] = select(a[i], (float4)(0.0f), nan) + bitselect(a[i], (float4)(2.0f), (float4)(1.0f));
  r[i] = any(nan) + all(inf) + isfinite(a[i].x) + isordered(a[i].x, a[i].y);
}
