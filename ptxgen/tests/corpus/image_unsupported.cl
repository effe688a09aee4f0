// EXPECT: fail
// ERROR: undefined function
__kernel void img(read_only image2d_t im, __global float4 *out, sampler_t s) {
  out[0] = read_imagef(im, s, (int2)(0, 0));
}
