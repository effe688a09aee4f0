// KERNELS: nested
struct inner { float v[3]; uchar tag; };
struct outer { int id; struct inner in; long big; float2 f2; };
__kernel void nested(__global float *out, struct outer o) {
  out[get_global_id(0)] = o.id + o.in.v[0] + o.in.v[2] + o.in.tag + o.big + o.f2.y;
}
