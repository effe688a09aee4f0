// KERNELS: v2 v16 l2
// The CTS's basic parameter_types kernels (by value, converted to float). At vector size 2 the
// H100 answered CUDA_ERROR_NOT_FOUND from cuModuleGetFunction (runs C and D): the char2/uchar2
// kernel, replaced before code generation, now and then lost its .entry to NVPTX's stale
// annotation cache (see char_pair_kernels_stay_entries; split_child caught it here as "entries
// differ" between whole and split builds).
__kernel void v2(char2 c, uchar2 uc, short2 s, ushort2 us, int2 i, uint2 ui, float2 f, __global float2 *r) {
  r[0] = convert_float2(c); r[1] = convert_float2(uc); r[2] = convert_float2(s); r[3] = convert_float2(us);
  r[4] = convert_float2(i); r[5] = convert_float2(ui); r[6] = f;
}
__kernel void v16(char16 c, uchar16 uc, short16 s, ushort16 us, int16 i, uint16 ui, float16 f, __global float16 *r) {
  r[0] = convert_float16(c); r[1] = convert_float16(uc); r[2] = convert_float16(s); r[3] = convert_float16(us);
  r[4] = convert_float16(i); r[5] = convert_float16(ui); r[6] = f;
}
__kernel void l2(long2 l, ulong2 ul, __global float2 *r) { r[0] = convert_float2(l); r[1] = convert_float2(ul); }
