// KERNELS: v2 v16 l2
// The CTS's basic parameter_types at vector size 2 got CUDA_ERROR_NOT_FOUND from
// cuModuleGetFunction on the H100 (runs C and D); every PTX of that test assembles with ptxas 12.9,
// so the cause is not the PTX. Small vectors of every width by value, converted to float.
__kernel void v2(char2 c, uchar2 uc, short2 s, ushort2 us, int2 i, uint2 ui, float2 f, __global float2 *r) {
  r[0] = convert_float2(c); r[1] = convert_float2(uc); r[2] = convert_float2(s); r[3] = convert_float2(us);
  r[4] = convert_float2(i); r[5] = convert_float2(ui); r[6] = f;
}
__kernel void v16(char16 c, uchar16 uc, short16 s, ushort16 us, int16 i, uint16 ui, float16 f, __global float16 *r) {
  r[0] = convert_float16(c); r[1] = convert_float16(uc); r[2] = convert_float16(s); r[3] = convert_float16(us);
  r[4] = convert_float16(i); r[5] = convert_float16(ui); r[6] = f;
}
__kernel void l2(long2 l, ulong2 ul, __global float2 *r) { r[0] = convert_float2(l); r[1] = convert_float2(ul); }
