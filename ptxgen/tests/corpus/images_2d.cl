// KERNELS: copy_sampled copy_samplerless scale_linear query
// Image built-ins on image2d_t: reads with a sampler argument and with a constant sampler, reads
// without a sampler, writes, queries (linked from ptxgen's images.cl).
__constant sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

__kernel void copy_sampled(read_only image2d_t src, sampler_t s, write_only image2d_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, read_imagef(src, s, p));
}

__kernel void copy_samplerless(read_only image2d_t src, write_only image2d_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imageui(dst, p, read_imageui(src, p));
  write_imagei(dst, p + 1, read_imagei(src, p + 1));
}

__kernel void scale_linear(read_only image2d_t src, write_only image2d_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  float2 c = ((float2)(p.x, p.y) + 0.5f) / (float2)(get_image_width(dst), get_image_height(dst));
  write_imagef(dst, p, read_imagef(src, linear, c));
}

__kernel void query(read_only image2d_t a, write_only image2d_t b, __global int *out) {
  const sampler_t s = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
  int2 d = get_image_dim(a);
  out[0] = d.x * d.y + get_image_width(b) + get_image_height(b);
  out[1] = get_image_channel_order(a) + get_image_channel_data_type(b);
  out[2] = read_imagei(a, s, (float2)(0.5f, 0.5f)).x;
#ifdef __IMAGE_SUPPORT__
  out[3] = __IMAGE_SUPPORT__;
#endif
}
