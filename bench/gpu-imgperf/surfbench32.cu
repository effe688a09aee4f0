// surfbench32 (nvcc -O3 -arch=sm_90): imagebench's 3x3 filter RGBA32F -> RGBA32F in CUDA, surface loads
// (what cudacl does) against texture fetches (what NVIDIA's OpenCL does), 4096^2, GB/s as
// imagebench counts them (image in + image out). Prints "S name us GB/s".
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#define W 4096
#define H 4096
__global__ void f_suld(cudaSurfaceObject_t in, cudaSurfaceObject_t out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int dy = -1; dy <= 1; dy++)
#pragma unroll
    for (int dx = -1; dx <= 1; dx++) {
      float w = (dx == 0 ? 2.0f : 1.0f) * (dy == 0 ? 2.0f : 1.0f) / 16.0f;
      int xx = min(max(x + dx, 0), W - 1), yy = min(max(y + dy, 0), H - 1);
      float4 p = surf2Dread<float4>(in, xx * 16, yy, cudaBoundaryModeZero);
      acc.x += w * p.x; acc.y += w * p.y; acc.z += w * p.z; acc.w += w * p.w;
    }
  surf2Dwrite(acc, out, x * 16, y, cudaBoundaryModeZero);
}
__global__ void f_tex(cudaTextureObject_t in, cudaSurfaceObject_t out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int dy = -1; dy <= 1; dy++)
#pragma unroll
    for (int dx = -1; dx <= 1; dx++) {
      float w = (dx == 0 ? 2.0f : 1.0f) * (dy == 0 ? 2.0f : 1.0f) / 16.0f;
      float4 p = tex2D<float4>(in, x + dx + 0.5f, y + dy + 0.5f);
      acc.x += w * p.x; acc.y += w * p.y; acc.z += w * p.z; acc.w += w * p.w;
    }
  surf2Dwrite(acc, out, x * 16, y, cudaBoundaryModeZero);
}
// Texel fetches at integer coordinates (tex.2d.v4.f32.s32, as cudacl's images.cl) of special
// float bits: denormals, NaN payloads, -0, infinities; and outside the image (zero border).
__global__ void fetch_bits(cudaTextureObject_t t, unsigned *out) {
  int i = threadIdx.x;
  float a, b, c, d;
  asm("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(t), "r"(i - 1), "r"(0));
  out[4 * i] = __float_as_uint(a); out[4 * i + 1] = __float_as_uint(b);
  out[4 * i + 2] = __float_as_uint(c); out[4 * i + 3] = __float_as_uint(d);
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)
template <typename F> static float best_us(F launch) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); float best = 1e30f;
  for (int r = 0; r <= 10; r++) {
    CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r > 0 && ms < best) best = ms;
  }
  return best * 1000.0f;
}
int main() {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindFloat);
  cudaArray_t ain, aout;
  CK(cudaMallocArray(&ain, &fd, W, H, cudaArraySurfaceLoadStore));
  CK(cudaMallocArray(&aout, &fd, W, H, cudaArraySurfaceLoadStore));
  float *host = (float *)malloc((size_t)W * H * 16);
  for (size_t i = 0; i < (size_t)W * H * 4; i++) host[i] = (float)(i % 251) / 251.0f;
  CK(cudaMemcpy2DToArray(ain, 0, 0, host, W * 16, W * 16, H, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray;
  rd.res.array.array = ain; cudaSurfaceObject_t sin, sout; CK(cudaCreateSurfaceObject(&sin, &rd));
  rd.res.array.array = aout; CK(cudaCreateSurfaceObject(&sout, &rd));
  rd.res.array.array = ain;
  cudaTextureDesc td = {}; td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint; td.readMode = cudaReadModeElementType; td.normalizedCoords = 0;
  cudaTextureObject_t tin; CK(cudaCreateTextureObject(&tin, &rd, &td, NULL));
  dim3 b(16, 16), g(W / 16, H / 16);
  double bytes = 2.0 * W * H * 16;
  for (int rep = 0; rep < 2; rep++) {
    float t = best_us([&] { f_suld<<<g, b>>>(sin, sout); });
    printf("S filter32_suld %.1f %.1f\n", t, bytes / t / 1e3);
    t = best_us([&] { f_tex<<<g, b>>>(tin, sout); });
    printf("S filter32_tex %.1f %.1f\n", t, bytes / t / 1e3);
  }
  {
    unsigned bits[8] = {0x00000001u, 0x007fffffu, 0x80000001u, 0x7fc00001u, 0xffa00003u, 0x80000000u, 0x7f800000u, 0xff800000u};
    cudaArray_t ab;
    CK(cudaMallocArray(&ab, &fd, 2, 1, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(ab, 0, 0, bits, 32, 32, 1, cudaMemcpyHostToDevice));
    cudaResourceDesc r2 = {}; r2.resType = cudaResourceTypeArray; r2.res.array.array = ab;
    cudaTextureDesc t2 = {}; t2.addressMode[0] = t2.addressMode[1] = t2.addressMode[2] = cudaAddressModeBorder;
    t2.filterMode = cudaFilterModePoint; t2.readMode = cudaReadModeElementType;
    cudaTextureObject_t tb; CK(cudaCreateTextureObject(&tb, &r2, &t2, NULL));
    unsigned *dout; CK(cudaMalloc(&dout, 64)); unsigned got[16];
    fetch_bits<<<1, 4>>>(tb, dout); CK(cudaMemcpy(got, dout, 64, cudaMemcpyDeviceToHost));
    int same = 1;
    for (int i = 0; i < 8; i++) same &= got[4 + i] == bits[i];
    int border = got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0 && got[12] == 0 && got[15] == 0;
    printf("B texel bits kept: %s (got %08x %08x %08x %08x %08x %08x %08x %08x); border zeros: %s\n", same ? "yes" : "NO",
           got[4], got[5], got[6], got[7], got[8], got[9], got[10], got[11], border ? "yes" : "NO");
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
