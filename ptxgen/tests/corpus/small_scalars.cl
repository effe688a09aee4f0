// KERNELS: scalars
__kernel void scalars(__global long *out, char c, uchar uc, short s, ushort us, int i, uint ui, long l, ulong ul,
                      float f, double d, __global half *unused_h) {
  out[0] = c + uc + s + us + i + ui + l + ul + (long)f + (long)d;
}
