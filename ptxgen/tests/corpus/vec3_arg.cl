// KERNELS: vec3
__kernel void vec3(__global float *out, float3 v, char3 c, double3 d) {
  out[get_global_id(0)] = v.x + v.y + v.z + c.x + c.z + (float)d.y;
}
