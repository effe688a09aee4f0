// KERNELS: many
__kernel void many(__global float *a0, char a1, double a2, __local int *a3, short a4, float4 a5, uchar a6,
                   __constant float *a7, long a8, int2 a9, char16 a10, ushort a11, __global int *a12,
                   float a13, double2 a14, uint a15, __local char *a16, char a17, float8 a18, int a19) {
  a3[0] = a1; a16[0] = a17;
  a0[get_global_id(0)] = a1 + a2 + a4 + a5.w + a6 + a7[0] + a8 + a9.y + a10.sf + a11 + a12[0] + a13 + a14.y +
                         a15 + a18.s7 + a19 + a3[0] + a16[0];
}
