// KERNELS: pairs
// char2/uchar2 by value: LLVM 19's NVPTX back end read a <2 x i8> parameter with ld.param.u32 and
// took its second element from the next parameter (the CTS's basic parameter_types,
// vector_swizzle); ptxgen passes them as 16-bit parameters.
__kernel void pairs(char2 a, uchar2 b, char c, char2 d, uchar2 e, __global char *o) {
  o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y; o[4] = c; o[5] = d.x; o[6] = d.y;
  o[7] = e.y;
}
