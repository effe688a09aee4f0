/* check_ptx: load ptxgen's PTX on a real NVIDIA GPU and run a few kernels with known results.
 *
 * Needs only libcuda.so.1 at run time (opened with dlopen; no CUDA headers or toolkit):
 *   gcc -O2 -o check_ptx check_ptx.c -ldl
 *   ./check_ptx info                 driver version, device, the sm/PTX ptxgen would pick
 *   ./check_ptx load FILE.ptx...     cuModuleLoadDataEx each file, PASS/FAIL with the JIT log
 *   ./check_ptx run DIR              run 9 corpus kernels with known results: vadd, reduce_sum
 *                                    (__local arg), offset_probe (global offset, work_dim,
 *                                    printf), at64 (64-bit atomics), sarg (struct by value),
 *                                    vec3 (3-vectors by value), ctab (__constant), mixed (three
 *                                    __local args) and sgemm_tiled (2-D), from DIR/<name>.ptx,
 *                                    with parameter buffers laid out from DIR/<name>.args (the
 *                                    output of `ptxgen --args`)
 * Exit status: the number of failures (0 = all passed). stage.sh prepares DIR.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_JIT_LOG_VERBOSE 12
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDriverGetVersion)(int *);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*cuCtxCreate)(CUcontext *, unsigned, CUdevice);
static CUresult (*cuCtxSynchronize)(void);
static CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
static CUresult (*cuModuleUnload)(CUmodule);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void **, void **);
static CUresult (*cuGetErrorString)(CUresult, const char **);

static int failures = 0;

static const char *errstr(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorString && cuGetErrorString(r, &s) == 0 && s) return s;
  return "unknown error";
}

#define CHECK(call)                                                                   \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != 0) {                                                                    \
      fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, r_,  \
              errstr(r_));                                                            \
      return -1;                                                                      \
    }                                                                                 \
  } while (0)

static void *sym(void *lib, const char *a, const char *b) {
  void *p = dlsym(lib, a);
  if (!p && b) p = dlsym(lib, b);
  if (!p) {
    fprintf(stderr, "libcuda.so.1 lacks %s\n", a);
    exit(100);
  }
  return p;
}

static CUdevice dev;
static CUcontext ctx;

static int setup(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot open libcuda.so.1: %s\n", dlerror());
    exit(100);
  }
  cuInit = sym(lib, "cuInit", NULL);
  cuDriverGetVersion = sym(lib, "cuDriverGetVersion", NULL);
  cuDeviceGet = sym(lib, "cuDeviceGet", NULL);
  cuDeviceGetName = sym(lib, "cuDeviceGetName", NULL);
  cuDeviceGetAttribute = sym(lib, "cuDeviceGetAttribute", NULL);
  cuCtxCreate = sym(lib, "cuCtxCreate_v2", "cuCtxCreate");
  cuCtxSynchronize = sym(lib, "cuCtxSynchronize", NULL);
  cuModuleLoadDataEx = sym(lib, "cuModuleLoadDataEx", NULL);
  cuModuleUnload = sym(lib, "cuModuleUnload", NULL);
  cuModuleGetFunction = sym(lib, "cuModuleGetFunction", NULL);
  cuMemAlloc = sym(lib, "cuMemAlloc_v2", "cuMemAlloc");
  cuMemFree = sym(lib, "cuMemFree_v2", "cuMemFree");
  cuMemcpyHtoD = sym(lib, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
  cuMemcpyDtoH = sym(lib, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
  cuLaunchKernel = sym(lib, "cuLaunchKernel", NULL);
  cuGetErrorString = sym(lib, "cuGetErrorString", NULL);
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, 0, dev));
  return 0;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  fclose(f);
  if (len) *len = (size_t)n;
  return buf;
}

/* Loads PTX with the JIT logs; prints PASS/FAIL. Returns the module or NULL. */
static CUmodule load_ptx(const char *path, int quiet) {
  char *ptx = read_file(path, NULL);
  if (!ptx) {
    printf("FAIL %s: cannot read\n", path);
    failures++;
    return NULL;
  }
  static char elog[1 << 16], ilog[1 << 16];
  elog[0] = ilog[0] = 0;
  int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void *vals[] = {elog, (void *)(uintptr_t)sizeof elog, ilog, (void *)(uintptr_t)sizeof ilog,
                  (void *)(uintptr_t)1};
  CUmodule m = NULL;
  CUresult r = cuModuleLoadDataEx(&m, ptx, 5, opts, vals);
  free(ptx);
  if (r != 0) {
    printf("FAIL %s: cuModuleLoadDataEx %d (%s)\n%s\n", path, r, errstr(r), elog);
    failures++;
    return NULL;
  }
  if (!quiet) printf("PASS %s%s%s", path, elog[0] ? "\n  jit warnings: " : "", elog);
  if (!quiet) printf("\n");
  return m;
}

/* ---- parameter layout from `ptxgen --args` ------------------------------------------------ */

typedef struct {
  unsigned nargs, off[64], size[64];
  int local[64];
  unsigned goff, wdim, groups, param_size;
} Layout;

static int read_layout(const char *dir, const char *file, const char *kernel, Layout *L) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.args", dir, file);
  char *text = read_file(path, NULL);
  if (!text) {
    printf("FAIL %s: cannot read %s (run stage.sh)\n", kernel, path);
    failures++;
    return -1;
  }
  memset(L, 0, sizeof *L);
  int in = 0, found = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char name[256], kind[64];
    unsigned a, b, c;
    if (sscanf(line, "kernel %255s param_size %u", name, &a) == 2) {
      in = strcmp(name, kernel) == 0;
      if (in) {
        L->param_size = a;
        found = 1;
      }
    } else if (in && sscanf(line, " arg %u %63s offset %u size %u", &a, kind, &b, &c) == 4 && a < 64) {
      L->off[a] = b;
      L->size[a] = c;
      L->local[a] = strcmp(kind, "local") == 0;
      if (a + 1 > L->nargs) L->nargs = a + 1;
    } else if (in && sscanf(line, " implicit global_offset offset %u", &a) == 1) {
      L->goff = a;
    } else if (in && sscanf(line, " implicit work_dim offset %u", &a) == 1) {
      L->wdim = a;
    } else if (in && sscanf(line, " implicit groups offset %u", &a) == 1) {
      L->groups = a;
    }
  }
  free(text);
  if (!found) {
    printf("FAIL %s: not in %s\n", kernel, path);
    failures++;
    return -1;
  }
  return 0;
}

typedef struct {
  unsigned char buf[4096];
  Layout L;
} Params;

static void put(Params *p, unsigned arg, const void *v, unsigned n) {
  memcpy(p->buf + p->L.off[arg], v, n);
}

static int launch2(CUmodule m, const char *kernel, Params *p, unsigned gx, unsigned gy,
                   unsigned bx, unsigned by, unsigned shared, unsigned long long offset0,
                   unsigned work_dim) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, m, kernel));
  unsigned long long goff[3] = {offset0, 0, 0};
  memcpy(p->buf + p->L.goff, goff, sizeof goff);
  memcpy(p->buf + p->L.wdim, &work_dim, 4);
  /* one piece: groups start at 0; the NDRange has gx x gy x 1 groups */
  unsigned groups[6] = {0, 0, 0, gx, gy, 1};
  memcpy(p->buf + p->L.groups, groups, sizeof groups);
  size_t size = p->L.param_size;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, p->buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shared, NULL, NULL, extra));
  CHECK(cuCtxSynchronize());
  return 0;
}

static int launch(CUmodule m, const char *kernel, Params *p, unsigned grid, unsigned block,
                  unsigned shared, unsigned long long offset0, unsigned work_dim) {
  return launch2(m, kernel, p, grid, 1, block, 1, shared, offset0, work_dim);
}

/* Loads DIR/FILE.ptx and the layout of KERNEL from DIR/FILE.args. */
static CUmodule prepare(const char *dir, const char *file, const char *kernel, Params *p) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.ptx", dir, file);
  CUmodule m = load_ptx(path, 1);
  memset(p, 0, sizeof *p);
  if (!m) return NULL;
  if (read_layout(dir, file, kernel, &p->L)) {
    cuModuleUnload(m);
    return NULL;
  }
  return m;
}

static void verdict(const char *name, int bad, const char *what) {
  if (bad) {
    printf("RUN FAIL %s: %s\n", name, what);
    failures++;
  } else {
    printf("RUN PASS %s\n", name);
  }
}

static int run_vadd(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/vadd.ptx", dir);
  CUmodule m = load_ptx(path, 1);
  Params p = {0};
  if (!m || read_layout(dir, "vadd", "vadd", &p.L)) return -1;
  unsigned n = 1u << 20;
  float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
  for (unsigned i = 0; i < n; i++) a[i] = (float)i, b[i] = 2.0f * (float)(i % 1000);
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, n * 4));
  CHECK(cuMemAlloc(&db, n * 4));
  CHECK(cuMemAlloc(&dc, n * 4));
  CHECK(cuMemcpyHtoD(da, a, n * 4));
  CHECK(cuMemcpyHtoD(db, b, n * 4));
  put(&p, 0, &da, 8);
  put(&p, 1, &db, 8);
  put(&p, 2, &dc, 8);
  put(&p, 3, &n, 4);
  if (launch(m, "vadd", &p, n / 256, 256, 0, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(c, dc, n * 4));
  int bad = 0;
  for (unsigned i = 0; i < n && !bad; i++) bad = c[i] != a[i] + b[i];
  verdict("vadd", bad, "c != a + b");
  cuMemFree(da), cuMemFree(db), cuMemFree(dc), cuModuleUnload(m);
  free(a), free(b), free(c);
  return 0;
}

static int run_reduce(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/reduction.ptx", dir);
  CUmodule m = load_ptx(path, 1);
  Params p = {0};
  if (!m || read_layout(dir, "reduction", "reduce_sum", &p.L)) return -1;
  unsigned n = 1u << 20, local = 256, groups = n / local;
  float *in = malloc(n * 4), *out = malloc(groups * 4);
  for (unsigned i = 0; i < n; i++) in[i] = (float)(i % 7);
  CUdeviceptr din, dout;
  CHECK(cuMemAlloc(&din, n * 4));
  CHECK(cuMemAlloc(&dout, groups * 4));
  CHECK(cuMemcpyHtoD(din, in, n * 4));
  unsigned scratch_off = 0; /* the one __local arg starts the dynamic shared array */
  put(&p, 0, &din, 8);
  put(&p, 1, &dout, 8);
  if (!p.L.local[2]) {
    verdict("reduce_sum", 1, "arg 2 is not reported as a __local argument");
    return -1;
  }
  put(&p, 2, &scratch_off, 4);
  put(&p, 3, &n, 4);
  if (launch(m, "reduce_sum", &p, groups, local, local * 4, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(out, dout, groups * 4));
  int bad = 0;
  for (unsigned g = 0; g < groups && !bad; g++) {
    float s = 0;
    for (unsigned i = 0; i < local; i++) s += in[g * local + i];
    bad = out[g] != s;
  }
  verdict("reduce_sum (__local argument)", bad, "group sums differ");
  cuMemFree(din), cuMemFree(dout), cuModuleUnload(m);
  free(in), free(out);
  return 0;
}

static int run_offset(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/offset_workdim.ptx", dir);
  CUmodule m = load_ptx(path, 1);
  Params p = {0};
  if (!m || read_layout(dir, "offset_workdim", "offset_probe", &p.L)) return -1;
  unsigned n = 64;
  unsigned long long ids[64], offs[64];
  unsigned dims[64];
  CUdeviceptr di, doff, dd;
  CHECK(cuMemAlloc(&di, sizeof ids));
  CHECK(cuMemAlloc(&doff, sizeof offs));
  CHECK(cuMemAlloc(&dd, sizeof dims));
  put(&p, 0, &di, 8);
  put(&p, 1, &doff, 8);
  put(&p, 2, &dd, 8);
  printf("(expect one device printf line: 'offset_probe: offset 1000 work_dim 1')\n");
  fflush(stdout);
  if (launch(m, "offset_probe", &p, n / 32, 32, 0, 1000, 1)) return -1;
  CHECK(cuMemcpyDtoH(ids, di, sizeof ids));
  CHECK(cuMemcpyDtoH(offs, doff, sizeof offs));
  CHECK(cuMemcpyDtoH(dims, dd, sizeof dims));
  int bad = 0;
  for (unsigned i = 0; i < n && !bad; i++) bad = ids[i] != 1000 + i || offs[i] != 1000 || dims[i] != 1;
  verdict("offset_probe (global offset, work_dim, printf)", bad,
          "get_global_id/get_global_offset/get_work_dim wrong");
  cuMemFree(di), cuMemFree(doff), cuMemFree(dd), cuModuleUnload(m);
  return 0;
}

static int run_at64(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/atom64.ptx", dir);
  CUmodule m = load_ptx(path, 1);
  Params p = {0};
  if (!m || read_layout(dir, "atom64", "at64", &p.L)) return -1;
  long long s[8] = {0};
  unsigned long long u[6] = {0xFF, 0, 0, 100, 0, 0};
  CUdeviceptr ds, du;
  CHECK(cuMemAlloc(&ds, sizeof s));
  CHECK(cuMemAlloc(&du, sizeof u));
  CHECK(cuMemcpyHtoD(ds, s, sizeof s));
  CHECK(cuMemcpyHtoD(du, u, sizeof u));
  put(&p, 0, &ds, 8);
  put(&p, 1, &du, 8);
  unsigned threads = 4096;
  if (launch(m, "at64", &p, threads / 256, 256, 0, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(s, ds, sizeof s));
  CHECK(cuMemcpyDtoH(u, du, sizeof u));
  long long ws[8] = {4096, -8192, 4096, -4096, 5, 7, -3, 9};
  unsigned long long wu[6] = {0xF0, 0x0F, 0, 4, 4, 4096};
  int bad = memcmp(s, ws, sizeof s) != 0 || memcmp(u, wu, sizeof u) != 0;
  if (bad) {
    for (int i = 0; i < 8; i++) printf("  long[%d] = %lld (want %lld)\n", i, s[i], ws[i]);
    for (int i = 0; i < 6; i++) printf("  ulong[%d] = %llu (want %llu)\n", i, u[i], wu[i]);
  }
  verdict("at64 (64-bit atom_* on long/ulong)", bad, "atomic results differ");
  cuMemFree(ds), cuMemFree(du), cuModuleUnload(m);
  return 0;
}

/* struct by value: S { float a; int b; double c } */
static int run_struct(const char *dir) {
  Params p;
  CUmodule m = prepare(dir, "struct_arg", "sarg", &p);
  if (!m) return -1;
  struct { float a; int b; double c; } s = {1.5f, 2, 3.25};
  int tail = 4;
  double out[32];
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, sizeof out));
  put(&p, 0, &d, 8);
  put(&p, 1, &s, sizeof s);
  put(&p, 2, &tail, 4);
  if (launch(m, "sarg", &p, 1, 32, 0, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(out, d, sizeof out));
  int bad = 0;
  for (int i = 0; i < 32 && !bad; i++) bad = out[i] != 10.75;
  verdict("sarg (struct by value)", bad, "wrong sum");
  cuMemFree(d), cuModuleUnload(m);
  return 0;
}

/* float3 / char3 / double3 by value */
static int run_vec3(const char *dir) {
  Params p;
  CUmodule m = prepare(dir, "vec3_arg", "vec3", &p);
  if (!m) return -1;
  float v[4] = {1, 2, 3, 0};
  signed char c[4] = {4, 5, 6, 0};
  double dd[4] = {7, 8, 9, 0};
  float out[32];
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, sizeof out));
  put(&p, 0, &d, 8);
  put(&p, 1, v, 16);
  put(&p, 2, c, 4);
  put(&p, 3, dd, 32);
  if (launch(m, "vec3", &p, 1, 32, 0, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(out, d, sizeof out));
  int bad = 0;
  for (int i = 0; i < 32 && !bad; i++) bad = out[i] != 24.0f;
  verdict("vec3 (float3/char3/double3 by value)", bad, "wrong sum");
  cuMemFree(d), cuModuleUnload(m);
  return 0;
}

/* __constant arguments and program-scope __constant data */
static int run_constant(const char *dir) {
  Params p;
  CUmodule m = prepare(dir, "constant_arg", "ctab", &p);
  if (!m) return -1;
  float coef[4] = {1, 2, 3, 4};
  int c4[4] = {10, 20, 30, 40};
  float out[64];
  CUdeviceptr d, dc, d4;
  CHECK(cuMemAlloc(&d, sizeof out));
  CHECK(cuMemAlloc(&dc, sizeof coef));
  CHECK(cuMemAlloc(&d4, sizeof c4));
  CHECK(cuMemcpyHtoD(dc, coef, sizeof coef));
  CHECK(cuMemcpyHtoD(d4, c4, sizeof c4));
  put(&p, 0, &d, 8);
  put(&p, 1, &dc, 8);
  put(&p, 2, &d4, 8);
  if (launch(m, "ctab", &p, 2, 32, 0, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(out, d, sizeof out));
  const float table[4] = {1, 2, 4, 8};
  const char msg[] = "const";
  int bad = 0;
  for (int i = 0; i < 64 && !bad; i++)
    bad = out[i] != table[i & 3] * coef[i % 4] + 20.0f + (float)msg[i % 5];
  verdict("ctab (__constant args and data)", bad, "wrong values");
  cuMemFree(d), cuMemFree(dc), cuMemFree(d4), cuModuleUnload(m);
  return 0;
}

/* three __local arguments, offsets assigned as the runtime does (16-aligned) */
static int run_mixed(const char *dir) {
  Params p;
  CUmodule m = prepare(dir, "local_args_mixed", "mixed", &p);
  if (!m) return -1;
  unsigned L = 64;
  char c = 3;
  double dv = 5.0;
  unsigned o_l4 = 0, o_lc = (o_l4 + 16 * L + 15) & ~15u, o_ll = (o_lc + L + 15) & ~15u;
  unsigned total = o_ll + 8 * L;
  int out[128];
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, sizeof out));
  if (!p.L.local[1] || !p.L.local[3] || !p.L.local[5]) {
    verdict("mixed", 1, "__local args not reported as local");
    return -1;
  }
  put(&p, 0, &c, 1);
  put(&p, 1, &o_l4, 4);
  put(&p, 2, &d, 8);
  put(&p, 3, &o_lc, 4);
  put(&p, 4, &dv, 8);
  put(&p, 5, &o_ll, 4);
  if (launch(m, "mixed", &p, 2, L, total, 0, 1)) return -1;
  CHECK(cuMemcpyDtoH(out, d, sizeof out));
  int bad = 0;
  for (int i = 0; i < 128 && !bad; i++) bad = out[i] != 8;
  verdict("mixed (three __local args, char/double scalars)", bad, "wrong values");
  cuMemFree(d), cuModuleUnload(m);
  return 0;
}

/* 2-D tiled SGEMM with two __local arguments */
static int run_sgemm(const char *dir) {
  Params p;
  CUmodule m = prepare(dir, "matmul_tiled", "sgemm_tiled", &p);
  if (!m) return -1;
  unsigned n = 64;
  float *A = malloc(n * n * 4), *B = malloc(n * n * 4), *C = malloc(n * n * 4);
  for (unsigned i = 0; i < n * n; i++) A[i] = (float)(i % 5), B[i] = (float)(i % 3);
  CUdeviceptr dA, dB, dC;
  CHECK(cuMemAlloc(&dA, n * n * 4));
  CHECK(cuMemAlloc(&dB, n * n * 4));
  CHECK(cuMemAlloc(&dC, n * n * 4));
  CHECK(cuMemcpyHtoD(dA, A, n * n * 4));
  CHECK(cuMemcpyHtoD(dB, B, n * n * 4));
  unsigned oA = 0, oB = 16 * 16 * 4;
  put(&p, 0, &n, 4);
  put(&p, 1, &dA, 8);
  put(&p, 2, &dB, 8);
  put(&p, 3, &dC, 8);
  put(&p, 4, &oA, 4);
  put(&p, 5, &oB, 4);
  if (launch2(m, "sgemm_tiled", &p, n / 16, n / 16, 16, 16, 2 * 16 * 16 * 4, 0, 2)) return -1;
  CHECK(cuMemcpyDtoH(C, dC, n * n * 4));
  int bad = 0;
  for (unsigned r = 0; r < n && !bad; r++)
    for (unsigned q = 0; q < n && !bad; q++) {
      float s = 0;
      for (unsigned k = 0; k < n; k++) s += A[r * n + k] * B[k * n + q];
      bad = C[r * n + q] != s;
    }
  verdict("sgemm_tiled (2-D, two __local args)", bad, "C differs from the CPU product");
  cuMemFree(dA), cuMemFree(dB), cuMemFree(dC), cuModuleUnload(m);
  free(A), free(B), free(C);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s info | load FILE.ptx... | run DIR\n", argv[0]);
    return 100;
  }
  if (setup()) return 100;
  int ver = 0, major = 0, minor = 0;
  char name[256] = "";
  cuDriverGetVersion(&ver);
  cuDeviceGetName(name, sizeof name, dev);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  printf("device: %s, compute capability %d.%d, driver %d\n", name, major, minor, ver);
  if (strcmp(argv[1], "info") == 0) return 0;
  if (strcmp(argv[1], "load") == 0) {
    int n = 0;
    for (int i = 2; i < argc; i++, n++) {
      CUmodule m = load_ptx(argv[i], 0);
      if (m) cuModuleUnload(m);
    }
    printf("%d passed, %d failed\n", n - failures, failures);
    return failures;
  }
  if (strcmp(argv[1], "run") == 0 && argc > 2) {
    const char *dir = argv[2];
    if (run_vadd(dir)) failures++;
    if (run_reduce(dir)) failures++;
    if (run_offset(dir)) failures++;
    if (run_at64(dir)) failures++;
    if (run_struct(dir)) failures++;
    if (run_vec3(dir)) failures++;
    if (run_constant(dir)) failures++;
    if (run_mixed(dir)) failures++;
    if (run_sgemm(dir)) failures++;
    printf("%d runs, %d failures\n", 9, failures);
    return failures;
  }
  fprintf(stderr, "usage: %s info | load FILE.ptx... | run DIR\n", argv[0]);
  return 100;
}
