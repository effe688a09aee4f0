// KERNELS: reads writes queries
// Every image type with every built-in that takes it (OpenCL 1.2 6.12.14, cl_khr_3d_image_writes).
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable

__kernel void reads(read_only image1d_t i1, read_only image1d_array_t i1a, read_only image2d_t i2,
                    read_only image2d_array_t i2a, read_only image3d_t i3,
                    read_only image1d_buffer_t ib, sampler_t s, __global float4 *f,
                    __global int4 *i, __global uint4 *u) {
  int x = get_global_id(0);
  float c = x * 0.25f;
  f[0] = read_imagef(i1, s, x) + read_imagef(i1, s, c) + read_imagef(i1, x);
  f[1] = read_imagef(i1a, s, (int2)(x, 1)) + read_imagef(i1a, s, (float2)(c, 1.0f)) + read_imagef(i1a, (int2)(x, 1));
  f[2] = read_imagef(i2, s, (int2)(x, 1)) + read_imagef(i2, s, (float2)(c, c)) + read_imagef(i2, (int2)(x, 1));
  f[3] = read_imagef(i2a, s, (int4)(x, 1, 2, 0)) + read_imagef(i2a, s, (float4)(c, c, 2.0f, 0.0f)) +
         read_imagef(i2a, (int4)(x, 1, 2, 0));
  f[4] = read_imagef(i3, s, (int4)(x, 1, 2, 0)) + read_imagef(i3, s, (float4)(c, c, c, 0.0f)) +
         read_imagef(i3, (int4)(x, 1, 2, 0));
  f[5] = read_imagef(ib, x);
  i[0] = read_imagei(i1, s, x) + read_imagei(i1, s, c) + read_imagei(i1, x);
  i[1] = read_imagei(i1a, s, (int2)(x, 1)) + read_imagei(i1a, s, (float2)(c, 1.0f)) + read_imagei(i1a, (int2)(x, 1));
  i[2] = read_imagei(i2, s, (int2)(x, 1)) + read_imagei(i2, s, (float2)(c, c)) + read_imagei(i2, (int2)(x, 1));
  i[3] = read_imagei(i2a, s, (int4)(x, 1, 2, 0)) + read_imagei(i2a, s, (float4)(c, c, 2.0f, 0.0f)) +
         read_imagei(i2a, (int4)(x, 1, 2, 0));
  i[4] = read_imagei(i3, s, (int4)(x, 1, 2, 0)) + read_imagei(i3, s, (float4)(c, c, c, 0.0f)) +
         read_imagei(i3, (int4)(x, 1, 2, 0));
  i[5] = read_imagei(ib, x);
  u[0] = read_imageui(i1, s, x) + read_imageui(i1, s, c) + read_imageui(i1, x);
  u[1] = read_imageui(i1a, s, (int2)(x, 1)) + read_imageui(i1a, s, (float2)(c, 1.0f)) + read_imageui(i1a, (int2)(x, 1));
  u[2] = read_imageui(i2, s, (int2)(x, 1)) + read_imageui(i2, s, (float2)(c, c)) + read_imageui(i2, (int2)(x, 1));
  u[3] = read_imageui(i2a, s, (int4)(x, 1, 2, 0)) + read_imageui(i2a, s, (float4)(c, c, 2.0f, 0.0f)) +
         read_imageui(i2a, (int4)(x, 1, 2, 0));
  u[4] = read_imageui(i3, s, (int4)(x, 1, 2, 0)) + read_imageui(i3, s, (float4)(c, c, c, 0.0f)) +
         read_imageui(i3, (int4)(x, 1, 2, 0));
  u[5] = read_imageui(ib, x);
}

__kernel void writes(write_only image1d_t o1, write_only image1d_array_t o1a, write_only image2d_t o2,
                     write_only image2d_array_t o2a, write_only image3d_t o3,
                     write_only image1d_buffer_t ob, float4 f, int4 i, uint4 u, int which) {
  int x = get_global_id(0);
  if (which == 0) {
    write_imagef(o1, x, f); write_imagef(o1a, (int2)(x, 1), f); write_imagef(o2, (int2)(x, 1), f);
    write_imagef(o2a, (int4)(x, 1, 2, 0), f); write_imagef(o3, (int4)(x, 1, 2, 0), f); write_imagef(ob, x, f);
  } else if (which == 1) {
    write_imagei(o1, x, i); write_imagei(o1a, (int2)(x, 1), i); write_imagei(o2, (int2)(x, 1), i);
    write_imagei(o2a, (int4)(x, 1, 2, 0), i); write_imagei(o3, (int4)(x, 1, 2, 0), i); write_imagei(ob, x, i);
  } else {
    write_imageui(o1, x, u); write_imageui(o1a, (int2)(x, 1), u); write_imageui(o2, (int2)(x, 1), u);
    write_imageui(o2a, (int4)(x, 1, 2, 0), u); write_imageui(o3, (int4)(x, 1, 2, 0), u); write_imageui(ob, x, u);
  }
}

__kernel void queries(read_only image1d_t i1, write_only image1d_array_t o1a, read_only image2d_array_t i2a,
                      write_only image3d_t o3, read_only image1d_buffer_t ib, __global int *out,
                      __global size_t *sizes) {
  out[0] = get_image_width(i1) + get_image_width(o1a) + get_image_width(i2a) + get_image_width(o3) + get_image_width(ib);
  out[1] = get_image_height(i2a) + get_image_height(o3) + get_image_depth(o3);
  int4 d3 = get_image_dim(o3);
  int2 d2 = get_image_dim(i2a);
  out[2] = d3.x + d3.y + d3.z + d3.w + d2.x + d2.y;
  out[3] = get_image_channel_order(i1) + get_image_channel_order(o1a) + get_image_channel_order(ib);
  out[4] = get_image_channel_data_type(i2a) + get_image_channel_data_type(o3) + get_image_channel_data_type(ib);
  sizes[0] = get_image_array_size(o1a) + get_image_array_size(i2a);
}
