// Images and samplers: a kernel argument sampler and a constant one.
constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

kernel void copy(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float4 v = read_imagef(src, s, p) + read_imagef(src, nearest, (float2)(p.x, p.y));
  write_imagef(dst, p, v * (float)get_image_width(src));
}

kernel void ints(read_only image3d_t src, global uint4 *out) {
  out[get_global_id(0)] = read_imageui(src, (int4)(get_global_id(0), 0, 0, 0));
}
