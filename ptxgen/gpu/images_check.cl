// The kernels of ptxgen/gpu/images_check.c: each reads or writes one image for every work-item,
// at coordinates or with values the host gives, so that the host can compare with its own
// implementation of OpenCL 1.2 sections 8.2 and 8.3.
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable

__kernel void rf2(read_only image2d_t im, sampler_t s, __global const float2 *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void rf2i(read_only image2d_t im, sampler_t s, __global const int2 *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void ri2(read_only image2d_t im, sampler_t s, __global const float2 *c, __global int4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagei(im, s, c[i]);
}
__kernel void rui2(read_only image2d_t im, sampler_t s, __global const float2 *c, __global uint4 *o) {
  int i = get_global_id(0);
  o[i] = read_imageui(im, s, c[i]);
}
__kernel void nos2(read_only image2d_t im, __global const int2 *c, __global float4 *f, __global int4 *n,
                   __global uint4 *u) {
  int i = get_global_id(0);
  f[i] = read_imagef(im, c[i]);
  n[i] = read_imagei(im, c[i]);
  u[i] = read_imageui(im, c[i]);
}
// A constant sampler (folded in the kernel): normalized, mirrored repeat, linear.
__kernel void rf2k(read_only image2d_t im, __global const float2 *c, __global float4 *o) {
  const sampler_t k = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
  int i = get_global_id(0);
  o[i] = read_imagef(im, k, c[i]);
}
__kernel void wf2(write_only image2d_t im, __global const float4 *v, int w) {
  int i = get_global_id(0);
  write_imagef(im, (int2)(i % w, i / w), v[i]);
}
__kernel void wi2(write_only image2d_t im, __global const int4 *v, int w) {
  int i = get_global_id(0);
  write_imagei(im, (int2)(i % w, i / w), v[i]);
}
__kernel void wui2(write_only image2d_t im, __global const uint4 *v, int w) {
  int i = get_global_id(0);
  write_imageui(im, (int2)(i % w, i / w), v[i]);
}
__kernel void rf3(read_only image3d_t im, sampler_t s, __global const float4 *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void rui3(read_only image3d_t im, sampler_t s, __global const float4 *c, __global uint4 *o) {
  int i = get_global_id(0);
  o[i] = read_imageui(im, s, c[i]);
}
__kernel void wui3(write_only image3d_t im, __global const uint4 *v, int w, int h) {
  int i = get_global_id(0);
  write_imageui(im, (int4)(i % w, i / w % h, i / (w * h), 0), v[i]);
}
__kernel void rf2a(read_only image2d_array_t im, sampler_t s, __global const float4 *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void wf2a(write_only image2d_array_t im, __global const float4 *v, int w, int h) {
  int i = get_global_id(0);
  write_imagef(im, (int4)(i % w, i / w % h, i / (w * h), 0), v[i]);
}
__kernel void rf1(read_only image1d_t im, sampler_t s, __global const float *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void rf1a(read_only image1d_array_t im, sampler_t s, __global const float2 *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, s, c[i]);
}
__kernel void wf1(write_only image1d_t im, __global const float4 *v) {
  int i = get_global_id(0);
  write_imagef(im, i, v[i]);
}
__kernel void wf1a(write_only image1d_array_t im, __global const float4 *v, int w) {
  int i = get_global_id(0);
  write_imagef(im, (int2)(i % w, i / w), v[i]);
}
__kernel void rbuf(read_only image1d_buffer_t im, __global const int *c, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, c[i]);
}
__kernel void wbuf(write_only image1d_buffer_t im, __global const float4 *v) {
  int i = get_global_id(0);
  write_imagef(im, i, v[i]);
}
__kernel void query(read_only image2d_array_t a, write_only image3d_t b, read_only image1d_buffer_t c,
                    read_only image1d_array_t d, __global int *o) {
  o[0] = get_image_width(a); o[1] = get_image_height(a); o[2] = (int)get_image_array_size(a);
  o[3] = get_image_channel_order(a); o[4] = get_image_channel_data_type(a);
  int4 d3 = get_image_dim(b);
  o[5] = d3.x; o[6] = d3.y; o[7] = d3.z; o[8] = d3.w; o[9] = get_image_depth(b);
  o[10] = get_image_width(c); o[11] = get_image_channel_order(c); o[12] = get_image_channel_data_type(c);
  o[13] = get_image_width(d); o[14] = (int)get_image_array_size(d);
  int2 d2 = get_image_dim(a);
  o[15] = d2.x; o[16] = d2.y;
}
// Sampler-less reads of every pixel of the other image types (i: the pixel's index in the host
// layout).
__kernel void nos1(read_only image1d_t im, __global float4 *o) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, i);
}
__kernel void nos1a(read_only image1d_array_t im, __global float4 *o, int w) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, (int2)(i % w, i / w));
}
__kernel void nos2a(read_only image2d_array_t im, __global float4 *o, int w, int h) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, (int4)(i % w, i / w % h, i / (w * h), 0));
}
__kernel void nos3(read_only image3d_t im, __global float4 *o, int w, int h) {
  int i = get_global_id(0);
  o[i] = read_imagef(im, (int4)(i % w, i / w % h, i / (w * h), 0));
}
__kernel void nos3u(read_only image3d_t im, __global uint4 *o, int w, int h) {
  int i = get_global_id(0);
  o[i] = read_imageui(im, (int4)(i % w, i / w % h, i / (w * h), 0));
}

// A 3x3 weighted filter of a 16x8 image into another (imagebench's, 1-D launch): the loop of
// reads makes ptxgen specialise the kernel for its images' formats (bridge/images.cpp: a copy per
// combination of RGBA8 and RGBA FLOAT images, and the general body for anything else), so each
// pairing of formats checks another copy. norm: normalized coordinates (exact: 1/16, 1/8).
__kernel void filt2(read_only image2d_t in, sampler_t s, write_only image2d_t out, int norm) {
  int x = get_global_id(0) % 16, y = get_global_id(0) / 16;
  float4 acc = (float4)(0.0f);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      float w = (dx == 0 ? 2.0f : 1.0f) * (dy == 0 ? 2.0f : 1.0f) / 16.0f;
      float2 c = (float2)(x + dx + 0.5f, y + dy + 0.5f);
      acc += w * read_imagef(in, s, norm ? c * (float2)(0.0625f, 0.125f) : c);
    }
  write_imagef(out, (int2)(x, y), acc);
}
