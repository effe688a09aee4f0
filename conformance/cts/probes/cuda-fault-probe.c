/* What the CUDA driver allows after an illegal address in the primary context (conf14 probe). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
typedef int R; typedef void *P;
static void *h;
#define S(name) name##_t name = (name##_t)dlsym(h, #name)
typedef R (*cuInit_t)(unsigned); typedef R (*cuDeviceGet_t)(int *, int);
typedef R (*cuDevicePrimaryCtxRetain_t)(P *, int); typedef R (*cuDevicePrimaryCtxRelease_v2_t)(int);
typedef R (*cuDevicePrimaryCtxReset_v2_t)(int);
typedef R (*cuCtxSetCurrent_t)(P); typedef R (*cuCtxCreate_v2_t)(P *, unsigned, int); typedef R (*cuCtxDestroy_v2_t)(P);
typedef R (*cuModuleLoadData_t)(P *, const void *); typedef R (*cuModuleGetFunction_t)(P *, P, const char *);
typedef R (*cuLaunchKernel_t)(P, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, P, void **, void **);
typedef R (*cuCtxSynchronize_t)(void); typedef R (*cuMemAlloc_v2_t)(uint64_t *, size_t);
typedef R (*cuGetErrorName_t)(R, const char **);
static const char *ptx = ".version 7.8\n.target sm_90\n.address_size 64\n"
  ".visible .entry f(.param .u64 p) { .reg .b64 %rd<2>; .reg .b32 %r<2>; ld.param.u64 %rd1, [p]; mov.u32 %r1, 1; st.global.u32 [%rd1], %r1; ret; }\n";
static cuGetErrorName_t en;
static const char *N(R r) { const char *s = "?"; if (en) en(r, &s); return s; }
int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) { printf("no libcuda\n"); return 1; }
  S(cuInit); S(cuDeviceGet); S(cuDevicePrimaryCtxRetain); S(cuDevicePrimaryCtxRelease_v2); S(cuDevicePrimaryCtxReset_v2);
  S(cuCtxSetCurrent); S(cuCtxCreate_v2); S(cuCtxDestroy_v2); S(cuModuleLoadData); S(cuModuleGetFunction);
  S(cuLaunchKernel); S(cuCtxSynchronize); S(cuMemAlloc_v2); S(cuGetErrorName); en = cuGetErrorName;
  printf("syms: init %p retain %p release %p reset %p create %p destroy %p load %p getfn %p launch %p sync %p alloc %p\n",
         (void *)cuInit, (void *)cuDevicePrimaryCtxRetain, (void *)cuDevicePrimaryCtxRelease_v2, (void *)cuDevicePrimaryCtxReset_v2,
         (void *)cuCtxCreate_v2, (void *)cuCtxDestroy_v2, (void *)cuModuleLoadData, (void *)cuModuleGetFunction,
         (void *)cuLaunchKernel, (void *)cuCtxSynchronize, (void *)cuMemAlloc_v2);
  int dev; P pc, m = NULL, f = NULL; R r;
  cuInit(0); cuDeviceGet(&dev, 0);
  r = cuDevicePrimaryCtxRetain(&pc, dev); printf("retain primary: %s %p\n", N(r), pc);
  cuCtxSetCurrent(pc);
  r = cuModuleLoadData(&m, ptx); printf("load: %s\n", N(r));
  r = cuModuleGetFunction(&f, m, "f"); printf("getfunction: %s\n", N(r));
  if (r) return 1;
  uint64_t bad = 0x10; void *args[] = {&bad};
  r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL); printf("fault launch: %s\n", N(r));
  r = cuCtxSynchronize(); printf("fault sync: %s\n", N(r));
  /* A: a context of our own while the faulted primary is still retained */
  P nc = NULL;
  r = cuCtxCreate_v2(&nc, 0, dev); printf("A cuCtxCreate_v2 beside the faulted primary: %s %p\n", N(r), nc);
  if (!r) {
    P m2, f2; uint64_t d = 0;
    r = cuModuleLoadData(&m2, ptx); printf("A load: %s\n", N(r));
    r = cuModuleGetFunction(&f2, m2, "f"); printf("A getfunction: %s\n", N(r));
    if (r) f2 = NULL;
    r = cuMemAlloc_v2(&d, 4096); printf("A alloc: %s\n", N(r));
    void *a2[] = {&d};
    if (f2) r = cuLaunchKernel(f2, 1, 1, 1, 32, 1, 1, 0, NULL, a2, NULL); printf("A launch: %s\n", N(r));
    r = cuCtxSynchronize(); printf("A sync: %s\n", N(r));
    r = cuCtxDestroy_v2(nc); printf("A destroy: %s\n", N(r));
  }
  /* B: release the primary (refcount 0: reset) and retain it again */
  r = cuDevicePrimaryCtxRelease_v2(dev); printf("B release: %s\n", N(r));
  P p2 = NULL;
  r = cuDevicePrimaryCtxRetain(&p2, dev); printf("B retain again: %s %p (same handle %d)\n", N(r), p2, p2 == pc);
  cuCtxSetCurrent(p2);
  { P m3, f3; uint64_t d = 0; void *a3[] = {&d};
    r = cuModuleLoadData(&m3, ptx); printf("B load: %s\n", N(r));
    r = cuModuleGetFunction(&f3, m3, "f"); printf("B getfunction: %s\n", N(r));
    if (r) f3 = NULL;
    r = cuMemAlloc_v2(&d, 4096); printf("B alloc: %s\n", N(r));
    if (f3) r = cuLaunchKernel(f3, 1, 1, 1, 32, 1, 1, 0, NULL, a3, NULL); printf("B launch: %s\n", N(r));
    r = cuCtxSynchronize(); printf("B sync: %s\n", N(r)); }
  /* C: reset the primary context outright, retain, run */
  r = cuDevicePrimaryCtxReset_v2(dev); printf("C reset: %s\n", N(r));
  P p3 = NULL;
  r = cuDevicePrimaryCtxRetain(&p3, dev); printf("C retain: %s %p\n", N(r), p3);
  cuCtxSetCurrent(p3);
  { P m4, f4 = NULL; uint64_t d = 0; void *a4[] = {&d};
    r = cuModuleLoadData(&m4, ptx); printf("C load: %s\n", N(r));
    r = cuModuleGetFunction(&f4, m4, "f"); printf("C getfunction: %s\n", N(r));
    r = cuMemAlloc_v2(&d, 4096); printf("C alloc: %s\n", N(r));
    if (f4) r = cuLaunchKernel(f4, 1, 1, 1, 32, 1, 1, 0, NULL, a4, NULL); printf("C launch: %s\n", N(r));
    r = cuCtxSynchronize(); printf("C sync: %s\n", N(r)); }
  return 0;
}
