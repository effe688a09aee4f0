// KERNELS: commonf
__kernel void commonf(__global float4 *v, float lo, float hi) {
  size_t i = get_global_id(0);
  float4 x = v[i];
  v[i] = clamp(x, lo, hi) + mix(x, (float4)(1.0f), 0.25f) + step(0.5f, x) + smoothstep(0.0f, 1.0f, x) +
         sign(x) + degrees(x) + radians(x) + max(x, 0.0f) + min(x, 1.0f);
}
