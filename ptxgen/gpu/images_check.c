/* images_check: ptxgen's image built-ins on a real GPU, before (and apart from) cudacl's host side.
 *
 * Makes CUDA arrays with surface objects (and one linear buffer for image1d_buffer), writes the
 * 64-byte descriptors of the image contract, launches the kernels of images_check.cl (PTX and
 * argument layout from `ptxgen images_check.cl -o images_check.ptx --args > images_check.args`)
 * and compares every result with its own implementation of OpenCL 1.2 sections 8.2 (sampling:
 * normalized and unnormalized coordinates, the five addressing modes, nearest and linear
 * filtering, arrays) and 8.3 (conversions, channel orders), written from the specification.
 *
 *   gcc -O2 -I$CUDA/include -o images_check images_check.c -L$CUDA/lib64/stubs -lcuda -lm
 *   ./images_check DIR        (DIR holds images_check.ptx and images_check.args)
 * Exit status: the number of failed rows (0 = all passed). One table row per check.
 */
#ifdef USE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#else
#include <cuda.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cl.h values (the descriptor carries them). */
enum { R = 0x10B0, A = 0x10B1, RG = 0x10B2, RA = 0x10B3, RGBA = 0x10B5, BGRA = 0x10B6, ARGB = 0x10B7,
       INTENSITY = 0x10B8, LUMINANCE = 0x10B9 };
enum { SNORM8 = 0x10D0, SNORM16 = 0x10D1, UNORM8 = 0x10D2, UNORM16 = 0x10D3, SINT8 = 0x10D7,
       SINT16 = 0x10D8, SINT32 = 0x10D9, UINT8 = 0x10DA, UINT16 = 0x10DB, UINT32 = 0x10DC,
       HALF = 0x10DD, FLOAT = 0x10DE };
enum { T2D = 0x10F1, T3D = 0x10F2, T2DA = 0x10F3, T1D = 0x10F4, T1DA = 0x10F5, TBUF = 0x10F6 };
/* Sampler bits (CLK_*). */
enum { NORM = 1, NONE = 0, EDGE = 2, CLAMP = 4, REPEAT = 6, MIRROR = 8, NEAREST = 0x10, LINEAR = 0x20 };

#ifndef USE_OPENCL
#define CK(call)                                                                             \
  do {                                                                                       \
    CUresult r_ = (call);                                                                    \
    if (r_ != CUDA_SUCCESS) {                                                                \
      const char *s_ = "?";                                                                  \
      cuGetErrorString(r_, &s_);                                                             \
      fprintf(stderr, "%s:%d: %s: %d %s\n", __FILE__, __LINE__, #call, (int)r_, s_);         \
      exit(99);                                                                              \
    }                                                                                        \
  } while (0)
#endif

static int failed_rows = 0, rows = 0;

/* Linear filtering: ptxgen's is done in float exactly as section 8.2 writes it (the reference
 * here too); NVIDIA's texture units weight with 8-bit fractions, so its results are compared
 * within 1/128 (relative to the texel values). */
#ifdef USE_OPENCL
#define LINEAR_TOL 8e-3
#else
#define LINEAR_TOL 2e-6
#endif

/* ------------------------------------------------------------------------------------------ */
/* Formats and conversions (section 8.3), from the specification.                             */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  unsigned order, type;
  int nch, csz;
} fmt_t;

static int channels_of(unsigned order) {
  switch (order) {
  case RG: case RA: return 2;
  case RGBA: case BGRA: case ARGB: return 4;
  default: return 1;
  }
}
static int csize_of(unsigned type) {
  switch (type) {
  case SNORM8: case UNORM8: case SINT8: case UINT8: return 1;
  case SNORM16: case UNORM16: case SINT16: case UINT16: case HALF: return 2;
  default: return 4;
  }
}
static fmt_t fmt(unsigned order, unsigned type) {
  fmt_t f = {order, type, channels_of(order), csize_of(type)};
  return f;
}
static int is_sint(unsigned t) { return t == SINT8 || t == SINT16 || t == SINT32; }
static int is_uint(unsigned t) { return t == UINT8 || t == UINT16 || t == UINT32; }
static const char *order_name(unsigned o) {
  switch (o) {
  case R: return "R"; case A: return "A"; case RG: return "RG"; case RA: return "RA";
  case RGBA: return "RGBA"; case BGRA: return "BGRA"; case ARGB: return "ARGB";
  case INTENSITY: return "INTENSITY"; case LUMINANCE: return "LUMINANCE"; default: return "?";
  }
}
static const char *type_name(unsigned t) {
  switch (t) {
  case SNORM8: return "SNORM_INT8"; case SNORM16: return "SNORM_INT16"; case UNORM8: return "UNORM_INT8";
  case UNORM16: return "UNORM_INT16"; case SINT8: return "SIGNED_INT8"; case SINT16: return "SIGNED_INT16";
  case SINT32: return "SIGNED_INT32"; case UINT8: return "UNSIGNED_INT8"; case UINT16: return "UNSIGNED_INT16";
  case UINT32: return "UNSIGNED_INT32"; case HALF: return "HALF_FLOAT"; case FLOAT: return "FLOAT"; default: return "?";
  }
}

static float h2f(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
  if (e == 0) {
    float f = ldexpf((float)m, -24);
    return s ? -f : f;
  }
  if (e == 31) x = s | 0x7f800000 | (m << 13);
  else x = s | ((e - 15 + 127) << 23) | (m << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* float -> half, round to nearest even. */
static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return (uint16_t)(sign | 0x7e00);
  if (ax >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* >= 65520 rounds to infinity */
  if (ax < 0x38800000) {                                   /* half subnormal or zero */
    float a;
    memcpy(&a, &ax, 4);
    return (uint16_t)(sign | (uint32_t)rintf(a * 16777216.0f));
  }
  uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffff) >> 13), rem = ax & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static uint32_t raw_channel(const fmt_t *f, const uint8_t *p, int c) {
  if (f->csz == 1) return p[c];
  if (f->csz == 2) { uint16_t v; memcpy(&v, p + 2 * c, 2); return v; }
  uint32_t v; memcpy(&v, p + 4 * c, 4); return v;
}

/* Storage channels -> (r, g, b, a); `one` for a missing alpha. */
static void order_map(unsigned order, const double s[4], double one, double out[4]) {
  double z = 0;
  switch (order) {
  case R: out[0] = s[0]; out[1] = z; out[2] = z; out[3] = one; break;
  case A: out[0] = z; out[1] = z; out[2] = z; out[3] = s[0]; break;
  case RG: out[0] = s[0]; out[1] = s[1]; out[2] = z; out[3] = one; break;
  case RA: out[0] = s[0]; out[1] = z; out[2] = z; out[3] = s[1]; break;
  case BGRA: out[0] = s[2]; out[1] = s[1]; out[2] = s[0]; out[3] = s[3]; break;
  case ARGB: out[0] = s[1]; out[1] = s[2]; out[2] = s[3]; out[3] = s[0]; break;
  case INTENSITY: out[0] = out[1] = out[2] = out[3] = s[0]; break;
  case LUMINANCE: out[0] = out[1] = out[2] = s[0]; out[3] = one; break;
  default: for (int i = 0; i < 4; i++) out[i] = s[i];
  }
}

/* The stored channels of a pixel as floats (read_imagef), in storage order. */
static void stored_f(const fmt_t *f, const uint8_t *p, float s[4]) {
  for (int c = 0; c < 4; c++) {
    uint32_t v = c < f->nch ? raw_channel(f, p, c) : 0;
    switch (f->type) {
    case UNORM8: s[c] = (float)v / 255.0f; break;
    case UNORM16: s[c] = (float)v / 65535.0f; break;
    case SNORM8: s[c] = fmaxf(-1.0f, (float)(int8_t)v / 127.0f); break;
    case SNORM16: s[c] = fmaxf(-1.0f, (float)(int16_t)v / 32767.0f); break;
    case HALF: s[c] = h2f((uint16_t)v); break;
    default: memcpy(&s[c], &v, 4);
    }
  }
}
static void stored_i(const fmt_t *f, const uint8_t *p, double s[4]) {
  for (int c = 0; c < 4; c++) {
    uint32_t v = c < f->nch ? raw_channel(f, p, c) : 0;
    if (f->type == SINT8) s[c] = (int8_t)v;
    else if (f->type == SINT16) s[c] = (int16_t)v;
    else if (f->type == SINT32) s[c] = (int32_t)v;
    else s[c] = v;
  }
}

static int f_is_normalized_or_half(unsigned t) {
  return t == UNORM8 || t == UNORM16 || t == SNORM8 || t == SNORM16 || t == HALF;
}

static int sat_rte(float x, float lo, float hi) {
  if (x != x) return 0;
  return (int)rintf(fminf(fmaxf(x, lo), hi));
}

/* (r, g, b, a) -> the pixel's bytes (write_imagef / write_imagei / write_imageui). */
static void encode(const fmt_t *f, const double rgba[4], uint8_t *p) {
  double s[4];
  switch (f->order) {
  case A: s[0] = rgba[3]; break;
  case RA: s[0] = rgba[0]; s[1] = rgba[3]; break;
  case BGRA: s[0] = rgba[2]; s[1] = rgba[1]; s[2] = rgba[0]; s[3] = rgba[3]; break;
  case ARGB: s[0] = rgba[3]; s[1] = rgba[0]; s[2] = rgba[1]; s[3] = rgba[2]; break;
  default: for (int i = 0; i < 4; i++) s[i] = rgba[i];
  }
  for (int c = 0; c < f->nch; c++) {
    float x = (float)s[c];
    uint32_t v;
    switch (f->type) {
    case UNORM8: v = (uint32_t)sat_rte(x * 255.0f, 0, 255); break;
    case UNORM16: v = (uint32_t)sat_rte(x * 65535.0f, 0, 65535); break;
    /* The CTS's reference (and NVIDIA) saturate at -1.0: -127, not -128. */
    case SNORM8: v = (uint32_t)sat_rte(x * 127.0f, -127, 127); break;
    case SNORM16: v = (uint32_t)sat_rte(x * 32767.0f, -32767, 32767); break;
    case HALF: v = f2h(x); break;
    case FLOAT: memcpy(&v, &x, 4); break;
    case SINT8: v = (uint32_t)(int32_t)fmin(fmax(s[c], -128), 127); break;
    case SINT16: v = (uint32_t)(int32_t)fmin(fmax(s[c], -32768), 32767); break;
    case SINT32: v = (uint32_t)(int32_t)s[c]; break;
    case UINT8: v = (uint32_t)fmin(s[c], 255); break;
    case UINT16: v = (uint32_t)fmin(s[c], 65535); break;
    default: v = (uint32_t)s[c];
    }
    if (f->csz == 1) p[c] = (uint8_t)v;
    else if (f->csz == 2) { uint16_t h = (uint16_t)v; memcpy(p + 2 * c, &h, 2); }
    else memcpy(p + 4 * c, &v, 4);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Images                                                                                       */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  unsigned itype;
  fmt_t f;
  int w, h, d, layers, esz;
  uint8_t *host;      /* the pixels, tight */
  uint64_t handle;    /* what an image argument gets: the descriptor's address (CUDA), a cl_mem */
#ifdef USE_OPENCL
  cl_mem buf;         /* image1d_buffer's buffer */
#else
  CUarray arr;
  CUsurfObject surf;
  CUtexObject tex;    /* 2-D RGBA FLOAT: the texture object cudacl makes beside the surface */
  CUdeviceptr buf;    /* image1d_buffer */
#endif
} img_t;

static int dims_of(unsigned t) { return t == T3D ? 3 : (t == T2D || t == T2DA) ? 2 : 1; }
static int is_array(unsigned t) { return t == T1DA || t == T2DA; }
static size_t npix(const img_t *im) { return (size_t)im->w * im->h * im->d * im->layers; }

static uint32_t rng = 12345;
static uint32_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng; }
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 8) / 16777216.0f; }

static int backend_image(img_t *im, size_t bytes);
static void backend_download(img_t *im);
static void backend_free(img_t *im);

/* A w x h x d x layers image of format f, random pixels or zeros. `ok` is 0 when the platform
 * refuses the format (NVIDIA's OpenCL does not offer every one). */
static img_t make_image(unsigned itype, fmt_t f, int w, int h, int d, int layers, int random, int *ok) {
  img_t im;
  memset(&im, 0, sizeof im);
  im.itype = itype; im.f = f; im.w = w; im.h = h; im.d = d; im.layers = layers;
  im.esz = f.nch * f.csz;
  size_t bytes = npix(&im) * im.esz;
  im.host = calloc(bytes, 1);
  if (random) {
    for (size_t i = 0; i < bytes; i++) im.host[i] = (uint8_t)rnd();
    /* Float data: random values in [-4, 4] (random bits would be NaNs and huge numbers). */
    for (size_t i = 0; i < npix(&im) * f.nch; i++) {
      if (f.type == FLOAT) { float v = rndf(-4, 4); memcpy(im.host + 4 * i, &v, 4); }
      if (f.type == HALF) { uint16_t v = f2h(rndf(-4, 4)); memcpy(im.host + 2 * i, &v, 2); }
    }
  }
  *ok = backend_image(&im, bytes);
  return im;
}

static void download(img_t *im) { backend_download(im); }
static void free_image(img_t *im) {
  backend_free(im);
  free(im->host);
}

#ifndef USE_OPENCL
static void memcpy3d(img_t *im, int upload) {
  CUDA_MEMCPY3D m;
  memset(&m, 0, sizeof m);
  size_t row = (size_t)im->w * im->esz;
  if (upload) {
    m.srcMemoryType = CU_MEMORYTYPE_HOST; m.srcHost = im->host; m.srcPitch = row; m.srcHeight = im->h;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY; m.dstArray = im->arr;
  } else {
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY; m.srcArray = im->arr;
    m.dstMemoryType = CU_MEMORYTYPE_HOST; m.dstHost = im->host; m.dstPitch = row; m.dstHeight = im->h;
  }
  m.WidthInBytes = row;
  m.Height = im->h;
  m.Depth = im->d * im->layers;
  CK(cuMemcpy3D(&m));
}

/* A CUDA array with a surface object (image1d_buffer: device memory) and the 64-byte
 * descriptor of the image contract. */
static int backend_image(img_t *im, size_t bytes) {
  unsigned itype = im->itype;
  fmt_t f = im->f;
  if (itype == TBUF) {
    CK(cuMemAlloc(&im->buf, bytes));
    CK(cuMemcpyHtoD(im->buf, im->host, bytes));
  } else {
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = im->w;
    ad.Height = dims_of(itype) > 1 ? im->h : 0;
    ad.Depth = itype == T3D ? im->d : is_array(itype) ? im->layers : 0;
    ad.Format = f.csz == 1 ? CU_AD_FORMAT_UNSIGNED_INT8 : f.csz == 2 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
    ad.NumChannels = f.nch;
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST | (is_array(itype) ? CUDA_ARRAY3D_LAYERED : 0);
    CK(cuArray3DCreate(&im->arr, &ad));
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = im->arr;
    CK(cuSurfObjectCreate(&im->surf, &rd));
    /* As src/cuda/array.rs: point sampling, unnormalized integer texels, a zero border. The
     * kernel side reads 2-D RGBA FLOAT images through it. */
    if (itype == T2D && f.order == RGBA && f.type == FLOAT) {
      CUDA_TEXTURE_DESC td;
      memset(&td, 0, sizeof td);
      td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = CU_TR_ADDRESS_MODE_BORDER;
      td.filterMode = CU_TR_FILTER_MODE_POINT;
      td.flags = CU_TRSF_READ_AS_INTEGER;
      CK(cuTexObjectCreate(&im->tex, &rd, &td, NULL));
    }
    memcpy3d(im, 1);
  }
  uint32_t desc[16];
  memset(desc, 0, sizeof desc);
  uint64_t s = im->surf, data = im->buf;
  memcpy(desc, &s, 8);
  memcpy(desc + 2, &data, 8);
  desc[4] = im->w; desc[5] = im->h; desc[6] = im->d; desc[7] = im->layers;
  desc[8] = f.order; desc[9] = f.type; desc[10] = im->esz; desc[11] = f.nch; desc[12] = itype;
  uint64_t t = im->tex;
  memcpy(desc + 14, &t, 8);
  CUdeviceptr dp;
  CK(cuMemAlloc(&dp, 64));
  CK(cuMemcpyHtoD(dp, desc, 64));
  im->handle = dp;
  return 1;
}

static void backend_download(img_t *im) {
  if (im->itype == TBUF) CK(cuMemcpyDtoH(im->host, im->buf, npix(im) * im->esz));
  else memcpy3d(im, 0);
}

static void backend_free(img_t *im) {
  if (im->tex) cuTexObjectDestroy(im->tex);
  if (im->surf) cuSurfObjectDestroy(im->surf);
  if (im->arr) cuArrayDestroy(im->arr);
  if (im->buf) cuMemFree(im->buf);
  cuMemFree((CUdeviceptr)im->handle);
}
#endif

/* The pixel at (x, y, z) (z: depth index or layer), or NULL outside the image (the border). */
static const uint8_t *pixel(const img_t *im, int x, int y, int z) {
  int zs = im->itype == T3D ? im->d : im->layers;
  if (x < 0 || x >= im->w || y < 0 || y >= im->h || z < 0 || z >= zs) return NULL;
  return im->host + (((size_t)z * im->h + y) * im->w + x) * im->esz;
}
static const uint8_t zeros[16];
static void texel_f(const img_t *im, int x, int y, int z, float s[4]) {
  const uint8_t *p = pixel(im, x, y, z);
  stored_f(&im->f, p ? p : zeros, s);
}

/* ------------------------------------------------------------------------------------------ */
/* Sampling (section 8.2), from the specification.                                             */
/* ------------------------------------------------------------------------------------------ */

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static int ref_nearest(float s, int n, unsigned smp) {
  int addr = smp & 0xE;
  if (addr == REPEAT) {
    float u = (s - floorf(s)) * n;
    int i = (int)floorf(u);
    return i > n - 1 ? i - n : i;
  }
  if (addr == MIRROR) {
    float sp = fabsf(s - 2.0f * rintf(0.5f * s));
    int i = (int)floorf(sp * n);
    return i < n - 1 ? i : n - 1;
  }
  float u = (smp & NORM) ? s * n : s;
  int i = (int)floorf(u);
  return addr == EDGE ? clampi(i, 0, n - 1) : i;
}

static float ref_linear(float s, int n, unsigned smp, int *i0, int *i1) {
  int addr = smp & 0xE;
  float u;
  if (addr == REPEAT) u = (s - floorf(s)) * n;
  else if (addr == MIRROR) u = fabsf(s - 2.0f * rintf(0.5f * s)) * n;
  else u = (smp & NORM) ? s * n : s;
  *i0 = (int)floorf(u - 0.5f);
  *i1 = *i0 + 1;
  if (addr == REPEAT) {
    if (*i0 < 0) *i0 += n;
    if (*i1 > n - 1) *i1 -= n;
  } else if (addr == MIRROR) {
    *i0 = *i0 < 0 ? 0 : *i0;
    *i1 = *i1 > n - 1 ? n - 1 : *i1;
  } else if (addr == EDGE) {
    *i0 = clampi(*i0, 0, n - 1);
    *i1 = clampi(*i1, 0, n - 1);
  }
  float t = u - 0.5f;
  return t - floorf(t);
}

/* read_imagef(im, smp, float coords c) -> out (r, g, b, a). */
static void ref_sample_f(const img_t *im, unsigned smp, const float c[4], double out[4]) {
  int dims = dims_of(im->itype);
  int layer = 0;
  if (is_array(im->itype)) layer = clampi((int)rintf(im->itype == T1DA ? c[1] : c[2]), 0, im->layers - 1);
  float v[4];
  if (!(smp & LINEAR)) {
    int x = ref_nearest(c[0], im->w, smp);
    int y = dims > 1 ? ref_nearest(c[1], im->h, smp) : 0;
    int z = dims > 2 ? ref_nearest(c[2], im->d, smp) : layer;
    texel_f(im, x, y, z, v);
  } else {
    int x0, x1, y0 = 0, y1 = 0, z0 = layer, z1 = layer;
    float a = ref_linear(c[0], im->w, smp, &x0, &x1), b = 0, r = 0;
    if (dims > 1) b = ref_linear(c[1], im->h, smp, &y0, &y1);
    if (dims > 2) r = ref_linear(c[2], im->d, smp, &z0, &z1);
    float t[2][2][2][4];
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) texel_f(im, i ? x1 : x0, j ? y1 : y0, k ? z1 : z0, t[k][j][i]);
    for (int q = 0; q < 4; q++) {
      if (dims == 1) {
        v[q] = (1.0f - a) * t[0][0][0][q] + a * t[0][0][1][q];
        continue;
      }
      float lo = (1.0f - a) * (1.0f - b) * t[0][0][0][q] + a * (1.0f - b) * t[0][0][1][q] +
                 (1.0f - a) * b * t[0][1][0][q] + a * b * t[0][1][1][q];
      if (dims == 2) {
        v[q] = lo;
        continue;
      }
      float hi = (1.0f - a) * (1.0f - b) * t[1][0][0][q] + a * (1.0f - b) * t[1][0][1][q] +
                 (1.0f - a) * b * t[1][1][0][q] + a * b * t[1][1][1][q];
      v[q] = (1.0f - r) * lo + r * hi;
    }
  }
  double s[4] = {v[0], v[1], v[2], v[3]};
  order_map(im->f.order, s, 1.0, out);
}

/* read_imagei/ui(im, smp, float coords): nearest. */
static void ref_sample_i(const img_t *im, unsigned smp, const float c[4], double out[4]) {
  int dims = dims_of(im->itype);
  int z = 0;
  if (is_array(im->itype)) z = clampi((int)rintf(im->itype == T1DA ? c[1] : c[2]), 0, im->layers - 1);
  int x = ref_nearest(c[0], im->w, smp);
  int y = dims > 1 ? ref_nearest(c[1], im->h, smp) : 0;
  if (dims > 2) z = ref_nearest(c[2], im->d, smp);
  const uint8_t *p = pixel(im, x, y, z);
  double s[4];
  stored_i(&im->f, p ? p : zeros, s);
  order_map(im->f.order, s, 1.0, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Kernels                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  char name[64];
  int nargs, off[16], size[16];
  char kind[16][32];  /* image, sampler, global, scalar, ... (ptxgen --args) */
  int goff, wdim, groups, param_size;
#ifdef USE_OPENCL
  cl_kernel fn;
#else
  CUfunction fn;
#endif
} kern_t;
static kern_t kerns[64];
static int nkerns;

static void load_args(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) { perror(path); exit(98); }
  char line[512];
  kern_t *k = NULL;
  while (fgets(line, sizeof line, f)) {
    char name[64], kind[32];
    int a, b, c;
    if (sscanf(line, "kernel %63s param_size %d", name, &a) == 2) {
      k = &kerns[nkerns++];
      memset(k, 0, sizeof *k);
      snprintf(k->name, sizeof k->name, "%s", name);
      k->param_size = a;
    } else if (k && sscanf(line, " arg %d %31s offset %d size %d", &a, kind, &b, &c) == 4 && a < 16) {
      k->off[a] = b; k->size[a] = c; k->nargs = a + 1;
      snprintf(k->kind[a], sizeof k->kind[a], "%s", kind);
    } else if (k && sscanf(line, " implicit %31s offset %d", kind, &b) == 2) {
      if (!strcmp(kind, "global_offset")) k->goff = b;
      else if (!strcmp(kind, "work_dim")) k->wdim = b;
      else if (!strcmp(kind, "groups")) k->groups = b;
    }
  }
  fclose(f);
}

static kern_t *kern(const char *name) {
  for (int i = 0; i < nkerns; i++)
    if (!strcmp(kerns[i].name, name)) return &kerns[i];
  fprintf(stderr, "no kernel %s in the args file\n", name);
  exit(98);
}

#ifndef USE_OPENCL
/* Launches `name` over n work-items (one block) with the argument values given (pointers,
 * sampler bits, ints: each written with its slot's size), as cudacl's runtime would: the
 * implicit parameters get work_dim 1 and one group of one group, offsets 0. */
static void launch(const char *name, int n, const uint64_t *vals) {
  kern_t *k = kern(name);
  uint8_t buf[256];
  memset(buf, 0, sizeof buf);
  for (int i = 0; i < k->nargs; i++) memcpy(buf + k->off[i], &vals[i], k->size[i]);
  uint32_t one = 1, groups[6] = {0, 0, 0, 1, 1, 1};
  memcpy(buf + k->wdim, &one, 4);
  memcpy(buf + k->groups, groups, 24);
  size_t sz = k->param_size;
  void *cfg[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &sz, CU_LAUNCH_PARAM_END};
  CK(cuLaunchKernel(k->fn, 1, 1, 1, n, 1, 1, 0, NULL, NULL, cfg));
  CK(cuCtxSynchronize());
}

static uint64_t dev_alloc(size_t n, const void *src) {
  CUdeviceptr p;
  CK(cuMemAlloc(&p, n));
  if (src) CK(cuMemcpyHtoD(p, src, n));
  else CK(cuMemsetD8(p, 0, n));
  return p;
}
static void dev_read(uint64_t p, void *dst, size_t n) { CK(cuMemcpyDtoH(dst, (CUdeviceptr)p, n)); }
static void dev_free(uint64_t p) { cuMemFree((CUdeviceptr)p); }

static const char *backend_setup(const char *dir) {
  static char info[512];
  char path[4096];
  CUdevice dev;
  CUcontext ctx;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  /* The primary context: cuCtxCreate's signature changed in CUDA 13. */
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  char devname[256];
  int drv;
  cuDeviceGetName(devname, sizeof devname, dev);
  cuDriverGetVersion(&drv);
  snprintf(info, sizeof info, "ptxgen PTX on the CUDA driver API: %s, driver API %d", devname, drv);
  snprintf(path, sizeof path, "%s/images_check.ptx", dir);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(98); }
  static char ptx[4 << 20];
  size_t len = fread(ptx, 1, sizeof ptx - 1, f);
  fclose(f);
  ptx[len] = 0;
  static char log[16384];
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *optv[] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule mod;
  CUresult r = cuModuleLoadDataEx(&mod, ptx, 2, opts, optv);
  if (r != CUDA_SUCCESS) { fprintf(stderr, "module load failed: %d\n%s\n", (int)r, log); exit(97); }
  for (int i = 0; i < nkerns; i++) CK(cuModuleGetFunction(&kerns[i].fn, mod, kerns[i].name));
  return info;
}
#else
/* The same checks on an OpenCL platform (NVIDIA's): images and samplers are OpenCL objects. */
#define CLK(call)                                                                            \
  do {                                                                                       \
    cl_int e_ = (call);                                                                      \
    if (e_ != CL_SUCCESS) { fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, e_); exit(99); } \
  } while (0)
static cl_context clctx;
static cl_command_queue clq;

static int backend_image(img_t *im, size_t bytes) {
  cl_image_format f = {im->f.order, im->f.type};
  cl_image_desc d;
  memset(&d, 0, sizeof d);
  d.image_type = im->itype;
  d.image_width = im->w;
  d.image_height = dims_of(im->itype) > 1 ? im->h : 0;
  d.image_depth = im->itype == T3D ? im->d : 0;
  d.image_array_size = is_array(im->itype) ? im->layers : 0;
  cl_int e;
  if (im->itype == TBUF) {
    im->buf = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, im->host, &e);
    if (e) return 0;
    d.buffer = im->buf;
  }
  cl_mem m = clCreateImage(clctx, CL_MEM_READ_WRITE | (im->itype == TBUF ? 0 : CL_MEM_COPY_HOST_PTR), &f, &d,
                           im->itype == TBUF ? NULL : im->host, &e);
  if (e) return 0;
  im->handle = (uint64_t)(uintptr_t)m;
  return 1;
}
static void backend_download(img_t *im) {
  size_t origin[3] = {0, 0, 0};
  size_t region[3] = {(size_t)im->w, 1, 1};
  if (im->itype == T1DA) region[1] = im->layers;
  if (im->itype == T2D || im->itype == T2DA || im->itype == T3D) region[1] = im->h;
  if (im->itype == T2DA) region[2] = im->layers;
  if (im->itype == T3D) region[2] = im->d;
  CLK(clEnqueueReadImage(clq, (cl_mem)(uintptr_t)im->handle, CL_TRUE, origin, region, 0, 0, im->host, 0, NULL, NULL));
}
static void backend_free(img_t *im) {
  if (im->handle) clReleaseMemObject((cl_mem)(uintptr_t)im->handle);
  if (im->buf) clReleaseMemObject(im->buf);
}

static void launch(const char *name, int n, const uint64_t *vals) {
  kern_t *k = kern(name);
  cl_sampler smps[16] = {0};
  for (int i = 0; i < k->nargs; i++) {
    if (!strcmp(k->kind[i], "sampler")) {
      static const cl_addressing_mode am[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                              CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
      cl_int e;
      smps[i] = clCreateSampler(clctx, (vals[i] & NORM) ? CL_TRUE : CL_FALSE, am[(vals[i] & 0xE) / 2],
                                (vals[i] & LINEAR) ? CL_FILTER_LINEAR : CL_FILTER_NEAREST, &e);
      CLK(e);
      CLK(clSetKernelArg(k->fn, i, sizeof(cl_sampler), &smps[i]));
    } else if (!strcmp(k->kind[i], "image") || !strcmp(k->kind[i], "global")) {
      cl_mem m = (cl_mem)(uintptr_t)vals[i];
      CLK(clSetKernelArg(k->fn, i, sizeof(cl_mem), &m));
    } else {
      CLK(clSetKernelArg(k->fn, i, k->size[i], &vals[i]));
    }
  }
  size_t g = n;
  CLK(clEnqueueNDRangeKernel(clq, k->fn, 1, NULL, &g, &g, 0, NULL, NULL));
  CLK(clFinish(clq));
  for (int i = 0; i < k->nargs; i++) if (smps[i]) clReleaseSampler(smps[i]);
}

static uint64_t dev_alloc(size_t n, const void *src) {
  cl_int e;
  static const uint8_t zero[1 << 16];
  cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, (void *)(src ? src : zero), &e);
  CLK(e);
  return (uint64_t)(uintptr_t)m;
}
static void dev_read(uint64_t p, void *dst, size_t n) {
  CLK(clEnqueueReadBuffer(clq, (cl_mem)(uintptr_t)p, CL_TRUE, 0, n, dst, 0, NULL, NULL));
}
static void dev_free(uint64_t p) { clReleaseMemObject((cl_mem)(uintptr_t)p); }

static const char *backend_setup(const char *dir) {
  static char info[512];
  char path[4096];
  cl_platform_id plat;
  cl_device_id dev;
  CLK(clGetPlatformIDs(1, &plat, NULL));
  CLK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int e;
  clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
  CLK(e);
  clq = clCreateCommandQueue(clctx, dev, 0, &e);
  CLK(e);
  char pname[128] = "", dname[128] = "", dver[128] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof dver, dver, NULL);
  snprintf(info, sizeof info, "OpenCL: %s, %s, driver %s", pname, dname, dver);
  snprintf(path, sizeof path, "%s/images_check.cl", dir);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(98); }
  static char src[1 << 20];
  size_t len = fread(src, 1, sizeof src - 1, f);
  fclose(f);
  src[len] = 0;
  const char *srcs[] = {src};
  cl_program prog = clCreateProgramWithSource(clctx, 1, srcs, NULL, &e);
  CLK(e);
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    static char log[65536];
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    exit(97);
  }
  for (int i = 0; i < nkerns; i++) {
    kerns[i].fn = clCreateKernel(prog, kerns[i].name, &e);
    CLK(e);
  }
  return info;
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* Checks                                                                                       */
/* ------------------------------------------------------------------------------------------ */

static const char *addr_name(unsigned smp) {
  switch (smp & 0xE) {
  case NONE: return "NONE"; case EDGE: return "CLAMP_TO_EDGE"; case CLAMP: return "CLAMP";
  case REPEAT: return "REPEAT"; default: return "MIRRORED_REPEAT";
  }
}
static const char *geom_name(unsigned t) {
  switch (t) {
  case T1D: return "1d"; case T1DA: return "1d_array"; case T2D: return "2d"; case T2DA: return "2d_array";
  case T3D: return "3d"; default: return "1d_buffer";
  }
}

static void row(const char *what, const img_t *im, const char *detail, int n, int bad, double maxerr) {
  rows++;
  if (bad) failed_rows++;
  printf("%-5s %-9s %-10s %-14s %-36s n=%-5d maxerr=%-9.3g %s\n", bad ? "FAIL" : "PASS", what,
         geom_name(im->itype), order_name(im->f.order), detail, n, maxerr, type_name(im->f.type));
}

static int close_enough(double got, double want, double tol) {
  if (want != want) return got != got;
  if (isinf(want)) return got == want;
  return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

/* Coordinates for one dimension of n texels under a sampler: random in a range wider than the
 * image, plus texel centres and edges. NONE keeps to where the result is defined. */
static float coord(int n, unsigned smp, int i) {
  int norm = smp & NORM, addr = smp & 0xE;
  float lo, hi;
  if (addr == NONE) { lo = (smp & LINEAR) ? 0.5f : 0.0f; hi = (smp & LINEAR) ? n - 0.5f : n - 0.01f; }
  else if (addr == REPEAT || addr == MIRROR) { lo = -2.5f * n; hi = 3.5f * n; }
  else { lo = -2.0f; hi = n + 2.0f; }
  float u;
  if (i % 4 == 0) u = (float)(int)rndf(lo, hi) + 0.5f;  /* a texel centre */
  else if (i % 4 == 1) u = (float)(int)rndf(lo, hi);    /* a texel edge */
  else u = rndf(lo, hi);
  if (addr == NONE) u = fminf(fmaxf(u, lo), hi);
#ifdef USE_OPENCL
  /* Texture hardware maps normalized coordinates to texels with a few fractional bits: exactly
   * on a texel edge it may land on either side. Kept 1/64 texel off the edges there. */
  if (norm && fabsf(u - rintf(u)) < 1.0f / 64) u = rintf(u) + 1.0f / 64;
#endif
  return norm ? u / n : u;
}

static const unsigned addrs[] = {NONE, EDGE, CLAMP, REPEAT, MIRROR};

/* Sampled reads with float coordinates: every addressing mode, normalized or not, nearest and
 * linear (read_imagef), or nearest (read_imagei/ui). */
static void check_sampled(img_t *im, const char *kname, int cw, int integer) {
  enum { N = 512 };
  int dims = dims_of(im->itype);
  for (int norm = 0; norm < 2; norm++)
    for (int ai = 0; ai < 5; ai++)
      for (int lin = 0; lin < 2; lin++) {
        if (!norm && (addrs[ai] == REPEAT || addrs[ai] == MIRROR)) continue;
#ifdef USE_OPENCL
        if (integer && lin) continue; /* undefined in OpenCL 1.2 (ptxgen samples nearest) */
#endif
        unsigned smp = (norm ? NORM : 0) | addrs[ai] | (lin ? LINEAR : NEAREST);
        float c[N][4];
        float packed[N * 4];
        for (int i = 0; i < N; i++) {
          c[i][0] = coord(im->w, smp, i);
          c[i][1] = dims > 1 ? coord(im->h, smp, i + 1) : 0;
          c[i][2] = dims > 2 ? coord(im->d, smp, i + 2) : 0;
          c[i][3] = 0;
          if (im->itype == T1DA) c[i][1] = rndf(-1.5f, im->layers + 0.5f);
          if (im->itype == T2DA) c[i][2] = rndf(-1.5f, im->layers + 0.5f);
          for (int q = 0; q < cw; q++) packed[i * cw + q] = c[i][q];
        }
        uint64_t dc = dev_alloc(sizeof(float) * cw * N, packed), dout = dev_alloc(16 * N, NULL);
        uint64_t args[] = {im->handle, smp, dc, dout};
        launch(kname, N, args);
        uint32_t got[N][4];
        dev_read(dout, got, sizeof got);
        int bad = 0;
        double maxerr = 0;
        for (int i = 0; i < N; i++) {
          double want[4];
          if (integer) ref_sample_i(im, smp, c[i], want);
          else ref_sample_f(im, smp, c[i], want);
          for (int q = 0; q < 4; q++) {
            double g;
            if (!integer) { float f; memcpy(&f, &got[i][q], 4); g = f; }
            else g = is_sint(im->f.type) ? (double)(int32_t)got[i][q] : (double)got[i][q];
            double e = fabs(g - want[q]);
            if (e == e && e > maxerr) maxerr = e;
            if (!close_enough(g, want[q], integer ? 0 : lin ? LINEAR_TOL : 2e-6)) {
              if (bad < 3)
                fprintf(stderr, "  %s smp=0x%x coord (%.9g, %.9g, %.9g) ch %d: got %.9g want %.9g\n", kname,
                        smp, c[i][0], c[i][1], c[i][2], q, g, want[q]);
              bad++;
            }
          }
        }
        char detail[64];
        snprintf(detail, sizeof detail, "%s %s %s", norm ? "norm" : "unnorm", addr_name(smp), lin ? "LINEAR" : "NEAREST");
        row(integer ? (is_sint(im->f.type) ? "read_i" : "read_ui") : "read_f", im, detail, N, bad, maxerr);
        dev_free(dc);
        dev_free(dout);
      }
}

/* read_imagef with integer coordinates and a sampler (unnormalized, nearest; EDGE, CLAMP, NONE). */
static void check_int_coords(img_t *im) {
  enum { N = 256 };
  const unsigned modes[] = {NONE, EDGE, CLAMP};
  for (int m = 0; m < 3; m++) {
    unsigned smp = modes[m] | NEAREST;
    int c[N][2];
    for (int i = 0; i < N; i++) {
      int lo = modes[m] == NONE ? 0 : -3;
      c[i][0] = lo + (int)(rnd() % (uint32_t)(im->w + (modes[m] == NONE ? 0 : 6)));
      c[i][1] = lo + (int)(rnd() % (uint32_t)(im->h + (modes[m] == NONE ? 0 : 6)));
    }
    uint64_t dc = dev_alloc(sizeof c, c), dout = dev_alloc(16 * N, NULL);
    uint64_t args[] = {im->handle, smp, dc, dout};
    launch("rf2i", N, args);
    float got[N][4];
    dev_read(dout, got, sizeof got);
    int bad = 0;
    double maxerr = 0;
    for (int i = 0; i < N; i++) {
      int x = c[i][0], y = c[i][1];
      if (modes[m] == EDGE) { x = clampi(x, 0, im->w - 1); y = clampi(y, 0, im->h - 1); }
      float v[4];
      texel_f(im, x, y, 0, v);
      double s[4] = {v[0], v[1], v[2], v[3]}, want[4];
      order_map(im->f.order, s, 1.0, want);
      for (int q = 0; q < 4; q++) {
        double e = fabs(got[i][q] - want[q]);
        if (e > maxerr) maxerr = e;
        if (!close_enough(got[i][q], want[q], 2e-6)) bad++;
      }
    }
    char detail[64];
    snprintf(detail, sizeof detail, "int coords %s NEAREST", addr_name(smp));
    row("read_f", im, detail, N, bad, maxerr);
    dev_free(dc);
    dev_free(dout);
  }
}

/* The constant sampler of rf2k (normalized, mirrored repeat, linear). */
static void check_const_sampler(img_t *im) {
  enum { N = 512 };
  unsigned smp = NORM | MIRROR | LINEAR;
  float c[N][2];
  for (int i = 0; i < N; i++) { c[i][0] = coord(im->w, smp, i); c[i][1] = coord(im->h, smp, i + 1); }
  uint64_t dc = dev_alloc(sizeof c, c), dout = dev_alloc(16 * N, NULL);
  uint64_t args[] = {im->handle, dc, dout};
  launch("rf2k", N, args);
  float got[N][4];
  dev_read(dout, got, sizeof got);
  int bad = 0;
  double maxerr = 0;
  for (int i = 0; i < N; i++) {
    float cc[4] = {c[i][0], c[i][1], 0, 0};
    double want[4];
    ref_sample_f(im, smp, cc, want);
    for (int q = 0; q < 4; q++) {
      double e = fabs(got[i][q] - want[q]);
      if (e > maxerr) maxerr = e;
      if (!close_enough(got[i][q], want[q], LINEAR_TOL)) bad++;
    }
  }
  row("read_f", im, "constant sampler norm MIRRORED LINEAR", N, bad, maxerr);
  dev_free(dc);
  dev_free(dout);
}

/* Sampler-less reads of every pixel (and a few outside: zeros). */
static void check_samplerless(img_t *im) {
  int n = im->w * im->h + 4;
  int(*c)[2] = malloc(sizeof(int[2]) * n);
  for (int i = 0; i < n - 4; i++) { c[i][0] = i % im->w; c[i][1] = i / im->w; }
  int outside[4][2] = {{-1, 0}, {im->w, 0}, {0, -1}, {0, im->h}};
  memcpy(c[n - 4], outside, sizeof outside);
  uint64_t dc = dev_alloc(sizeof(int[2]) * n, c), df = dev_alloc(16 * n, NULL), di = dev_alloc(16 * n, NULL),
              du = dev_alloc(16 * n, NULL);
  uint64_t args[] = {im->handle, dc, df, di, du};
  launch("nos2", n, args);
  uint32_t(*got)[4] = malloc(16 * n);
  dev_read(is_sint(im->f.type) ? di : is_uint(im->f.type) ? du : df, got, 16 * n);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const uint8_t *p = pixel(im, c[i][0], c[i][1], 0);
    double s[4], want[4];
    if (is_sint(im->f.type) || is_uint(im->f.type)) stored_i(&im->f, p ? p : zeros, s);
    else { float v[4]; stored_f(&im->f, p ? p : zeros, v); for (int q = 0; q < 4; q++) s[q] = v[q]; }
    order_map(im->f.order, s, 1.0, want);
    for (int q = 0; q < 4; q++) {
      double g;
      if (is_sint(im->f.type)) g = (int32_t)got[i][q];
      else if (is_uint(im->f.type)) g = got[i][q];
      else { float f; memcpy(&f, &got[i][q], 4); g = f; }
      if (!close_enough(g, want[q], is_sint(im->f.type) || is_uint(im->f.type) ? 0 : 2e-6)) bad++;
    }
  }
  row(is_sint(im->f.type) ? "nosmp_i" : is_uint(im->f.type) ? "nosmp_ui" : "nosmp_f", im, "every pixel + 4 outside", n, bad, 0);
  dev_free(dc); dev_free(df); dev_free(di); dev_free(du);
  free(c); free(got);
}

/* A write of every pixel with random values (out-of-range ones, ties, NaN and infinities for
 * float writes), compared byte for byte with the conversions of section 8.3. */
static void check_writes(img_t *im, const char *kname, int kind /* 0 f, 1 i, 2 ui */) {
  int n = (int)npix(im);
  uint32_t(*v)[4] = malloc(16 * n);
  double(*vd)[4] = malloc(sizeof(double[4]) * n);
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 4; q++) {
      if (kind == 0) {
        float f;
        switch (rnd() % 8) {
        case 0: f = rndf(-70000, 70000); break;
        case 1: f = ((float)(rnd() % 256) + 0.5f) / 255.0f; break;  /* unorm8 ties */
        case 2: f = ((float)(int)(rnd() % 256) - 128.5f) / 127.0f; break;
        case 3: { const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 2.0f}; f = sp[rnd() % 8]; break; }
        default: f = rndf(-1.5f, 1.5f);
        }
        memcpy(&v[i][q], &f, 4);
        vd[i][q] = f;
      } else if (kind == 1) {
        int32_t x = (rnd() % 2) ? (int32_t)(rnd() % 200000) - 100000 : (int32_t)(rnd() % 300) - 150;
        v[i][q] = (uint32_t)x;
        vd[i][q] = x;
      } else {
        uint32_t x = (rnd() % 2) ? rnd() : rnd() % 300;
        v[i][q] = x;
        vd[i][q] = x;
      }
    }
  uint64_t dv = dev_alloc(16 * n, v);
  uint64_t args[] = {im->handle, dv, (uint64_t)im->w, (uint64_t)im->h};
  launch(kname, n, args);
  download(im);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    uint8_t want[16] = {0};
    encode(&im->f, vd[i], want);
    const uint8_t *got = im->host + (size_t)i * im->esz;
    int ok = !memcmp(got, want, im->esz);
#ifdef USE_OPENCL
    /* NVIDIA rounds some ties of normalized writes and half conversions the other way (the CTS
     * allows it): one unit in the last place is accepted on an OpenCL platform. */
    if (!ok && kind == 0 && f_is_normalized_or_half(im->f.type)) {
      ok = 1;
      for (int q = 0; q < im->f.nch; q++) {
        long g = (long)raw_channel(&im->f, got, q), w = (long)raw_channel(&im->f, want, q);
        if (labs(g - w) > 1) ok = 0;
      }
    }
#endif
    if (!ok && im->f.type == HALF) { /* any NaN for a NaN */
      ok = 1;
      for (int q = 0; q < im->f.nch; q++) {
        uint16_t g, w;
        memcpy(&g, got + 2 * q, 2);
        memcpy(&w, want + 2 * q, 2);
        if (g != w && !((g & 0x7c00) == 0x7c00 && (g & 0x3ff) && (w & 0x7c00) == 0x7c00 && (w & 0x3ff))) ok = 0;
      }
    }
    if (!ok && im->f.type == FLOAT) { /* NaN payloads may differ */
      ok = 1;
      for (int q = 0; q < im->f.nch; q++) {
        float g, w;
        memcpy(&g, got + 4 * q, 4);
        memcpy(&w, want + 4 * q, 4);
        if (memcmp(&g, &w, 4) && !(g != g && w != w)) ok = 0;
      }
    }
    if (!ok) {
      if (bad < 3) {
        fprintf(stderr, "  %s pixel %d: value (%.9g %.9g %.9g %.9g) bytes got", kname, i, vd[i][0], vd[i][1], vd[i][2], vd[i][3]);
        for (int b = 0; b < im->esz; b++) fprintf(stderr, " %02x", got[b]);
        fprintf(stderr, " want");
        for (int b = 0; b < im->esz; b++) fprintf(stderr, " %02x", want[b]);
        fprintf(stderr, "\n");
      }
      bad++;
    }
  }
  row(kind == 0 ? "write_f" : kind == 1 ? "write_i" : "write_ui", im, "every pixel, random values", n, bad, 0);
  dev_free(dv);
  free(v);
  free(vd);
}

/* Sampler-less reads of every pixel of a 1-D, 1-D array, 2-D array or 3-D image (kernel kname
 * reads pixel i of the host layout). */
static void check_samplerless_all(img_t *im, const char *kname) {
  int n = (int)npix(im), integer = is_uint(im->f.type);
  uint64_t dout = dev_alloc(16 * (size_t)n, NULL);
  uint64_t args[] = {im->handle, dout, (uint64_t)im->w, (uint64_t)im->h};
  launch(kname, n, args);
  uint32_t(*got)[4] = malloc(16 * (size_t)n);
  dev_read(dout, got, 16 * (size_t)n);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const uint8_t *p = im->host + (size_t)i * im->esz;
    double s[4], want[4];
    if (integer) stored_i(&im->f, p, s);
    else { float v[4]; stored_f(&im->f, p, v); for (int q = 0; q < 4; q++) s[q] = v[q]; }
    order_map(im->f.order, s, 1.0, want);
    for (int q = 0; q < 4; q++) {
      double g;
      if (integer) g = got[i][q];
      else { float f; memcpy(&f, &got[i][q], 4); g = f; }
      if (!close_enough(g, want[q], integer ? 0 : 2e-6)) bad++;
    }
  }
  row(integer ? "nosmp_ui" : "nosmp_f", im, "every pixel", n, bad, 0);
  dev_free(dout);
  free(got);
}

/* image1d_buffer: sampler-less reads of every pixel and 3 outside (zeros). */
static void check_buffer_reads(img_t *im) {
  int n = im->w + 3;
  int *c = malloc(sizeof(int) * n);
  for (int i = 0; i < im->w; i++) c[i] = i;
  c[im->w] = -1; c[im->w + 1] = im->w; c[im->w + 2] = 1 << 30;
  uint64_t dc = dev_alloc(sizeof(int) * n, c), dout = dev_alloc(16 * n, NULL);
  uint64_t args[] = {im->handle, dc, dout};
  launch("rbuf", n, args);
  float(*got)[4] = malloc(16 * n);
  dev_read(dout, got, 16 * n);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float v[4];
    texel_f(im, c[i], 0, 0, v);
    double s[4] = {v[0], v[1], v[2], v[3]}, want[4];
    order_map(im->f.order, s, 1.0, want);
    for (int q = 0; q < 4; q++) if (!close_enough(got[i][q], want[q], 2e-6)) bad++;
  }
  row("nosmp_f", im, "every pixel + 3 outside", n, bad, 0);
  dev_free(dc); dev_free(dout); free(c); free(got);
}

static void check_queries(void) {
  int ok[4];
  img_t a = make_image(T2DA, fmt(RGBA, UNORM8), 11, 5, 1, 4, 0, &ok[0]);
  img_t b = make_image(T3D, fmt(R, UINT32), 9, 6, 5, 1, 0, &ok[1]);
  img_t c = make_image(TBUF, fmt(BGRA, UNORM8), 33, 1, 1, 1, 0, &ok[2]);
  img_t d = make_image(T1DA, fmt(R, HALF), 17, 1, 1, 3, 0, &ok[3]);
  if (!ok[0] || !ok[1] || !ok[2] || !ok[3]) {
    printf("SKIP  query (a format is refused)\n");
    return;
  }
  uint64_t dout = dev_alloc(4 * 17, NULL);
  uint64_t args[] = {a.handle, b.handle, c.handle, d.handle, dout};
  launch("query", 1, args);
  int got[17];
  dev_read(dout, got, sizeof got);
  int want[17] = {11, 5, 4, RGBA, UNORM8, 9, 6, 5, 0, 5, 33, BGRA, UNORM8, 17, 3, 11, 5};
  int bad = 0;
  for (int i = 0; i < 17; i++) if (got[i] != want[i]) { bad++; fprintf(stderr, "  query %d: got %d want %d\n", i, got[i], want[i]); }
  row("query", &a, "get_image_* of 4 image types", 17, bad, 0);
  free_image(&a); free_image(&b); free_image(&c); free_image(&d);
  dev_free(dout);
}

static void skipped(unsigned itype, fmt_t f) {
  printf("SKIP  %-9s %-10s %-14s %-36s (the platform refuses the format) %s\n", "-", geom_name(itype),
         order_name(f.order), "", type_name(f.type));
}

/* filt2: a 3x3 weighted filter from an image of format fin into one of format fout (16x8), with
 * sampler smp; every output pixel against the reference sampling, summed in double (the kernel
 * sums in float: a few ulp; unnormalized outputs within one unit of their conversion). */
static void check_filter(fmt_t fin, fmt_t fout, unsigned smp) {
  enum { W = 16, H = 8 };
  int ok1, ok2;
  img_t in = make_image(T2D, fin, W, H, 1, 1, 1, &ok1);
  img_t out = make_image(T2D, fout, W, H, 1, 1, 0, &ok2);
  if (!ok1 || !ok2) {
    skipped(T2D, ok1 ? fout : fin);
    if (ok1) free_image(&in); else free(in.host);
    if (ok2) free_image(&out); else free(out.host);
    return;
  }
  int norm = (smp & NORM) != 0;
  uint64_t args[] = {in.handle, smp, out.handle, (uint64_t)norm};
  launch("filt2", W * H, args);
  download(&out);
  int bad = 0;
  double maxerr = 0;
  double unit = fout.type == UNORM8 ? 1.0 / 255 : fout.type == UNORM16 ? 1.0 / 65535 : 0;
  double tol = fout.type == FLOAT ? 1e-5 : fout.type == HALF ? 2e-3 : 1.01 * unit;
  if (smp & LINEAR) tol += LINEAR_TOL;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double acc[4] = {0, 0, 0, 0};
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          double w = (dx == 0 ? 2.0 : 1.0) * (dy == 0 ? 2.0 : 1.0) / 16.0, v[4];
          float c[4] = {x + dx + 0.5f, y + dy + 0.5f, 0, 0};
          if (norm) { c[0] *= 0.0625f; c[1] *= 0.125f; }
          ref_sample_f(&in, smp, c, v);
          for (int q = 0; q < 4; q++) acc[q] += w * v[q];
        }
      float got[4];
      stored_f(&out.f, pixel(&out, x, y, 0), got);
      for (int q = 0; q < 4; q++) {
        double want = unit ? fmin(fmax(acc[q], 0.0), 1.0) : acc[q];
        double e = fabs(got[q] - want);
        if (e > maxerr) maxerr = e;
        if (!close_enough(got[q], want, tol)) {
          if (bad < 3)
            fprintf(stderr, "  filt2 %s -> %s smp=0x%x pixel (%d, %d) ch %d: got %.9g want %.9g\n",
                    type_name(fin.type), type_name(fout.type), smp, x, y, q, got[q], want);
          bad++;
        }
      }
    }
  char detail[64];
  snprintf(detail, sizeof detail, "filter3x3 -> %s %s %s %s", order_name(fout.order), type_name(fout.type),
           norm ? "norm" : "unnorm", addr_name(smp));
  row((smp & LINEAR) ? "filt_lin" : "filt", &in, detail, W * H, bad, maxerr);
  free_image(&in);
  free_image(&out);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/images_check.args", dir);
  load_args(path);
  printf("%s\n", backend_setup(dir));
  int ok;

  /* 2-D images: float-class formats get float reads (sampled, int coords, constant sampler),
   * integer ones integer reads; all get sampler-less reads and writes. */
  const fmt_t f2[] = {fmt(RGBA, UNORM8), fmt(BGRA, UNORM8), fmt(R, FLOAT), fmt(RGBA, HALF), fmt(RGBA, SNORM8),
                      fmt(RA, SNORM16), fmt(INTENSITY, UNORM16), fmt(LUMINANCE, FLOAT), fmt(A, UNORM8),
                      fmt(RG, SINT16), fmt(RGBA, SINT8), fmt(RG, UINT8), fmt(R, UINT32), fmt(RGBA, FLOAT)};
  for (size_t i = 0; i < sizeof f2 / sizeof f2[0]; i++) {
    img_t im = make_image(T2D, f2[i], 13, 7, 1, 1, 1, &ok);
    if (!ok) { skipped(T2D, f2[i]); free(im.host); continue; }
    int sint = is_sint(f2[i].type), uint = is_uint(f2[i].type);
    if (!sint && !uint) {
      check_sampled(&im, "rf2", 2, 0);
      check_int_coords(&im);
      check_const_sampler(&im);
    } else {
      check_sampled(&im, sint ? "ri2" : "rui2", 2, 1);
    }
    check_samplerless(&im);
    check_writes(&im, sint ? "wi2" : uint ? "wui2" : "wf2", sint ? 1 : uint ? 2 : 0);
    free_image(&im);
  }
  /* 3-D: R UNSIGNED_INT32 (read_imageui, write_imageui: cl_khr_3d_image_writes), RGBA UNORM_INT8
   * and R FLOAT (trilinear). */
  img_t u3 = make_image(T3D, fmt(R, UINT32), 9, 6, 5, 1, 1, &ok);
  if (ok) {
    check_samplerless_all(&u3, "nos3u");
    check_sampled(&u3, "rui3", 4, 1);
    check_writes(&u3, "wui3", 2);
    free_image(&u3);
  } else skipped(T3D, u3.f);
  const fmt_t f3[] = {fmt(RGBA, UNORM8), fmt(R, FLOAT)};
  for (int i = 0; i < 2; i++) {
    img_t im = make_image(T3D, f3[i], 9, 6, 5, 1, 1, &ok);
    if (!ok) { skipped(T3D, f3[i]); continue; }
    check_samplerless_all(&im, "nos3");
    check_sampled(&im, "rf3", 4, 0);
    free_image(&im);
  }
  /* Arrays (the layer rounded and clamped, never filtered), 1-D, 1-D buffer. */
  struct { unsigned t; fmt_t f; int w, layers; const char *rk, *wk, *nk; int cw; } o[] = {
      {T2DA, fmt(RGBA, UNORM8), 11, 4, "rf2a", "wf2a", "nos2a", 4},
      {T1D, fmt(RGBA, FLOAT), 17, 1, "rf1", "wf1", "nos1", 1},
      {T1DA, fmt(R, HALF), 17, 3, "rf1a", "wf1a", "nos1a", 2},
      {TBUF, fmt(BGRA, UNORM8), 33, 1, NULL, "wbuf", NULL, 0},
  };
  for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
    img_t im = make_image(o[i].t, o[i].f, o[i].w, o[i].t == T2DA ? 5 : 1, 1, o[i].layers, 1, &ok);
    if (!ok) { skipped(o[i].t, o[i].f); continue; }
    if (o[i].nk) check_samplerless_all(&im, o[i].nk);
    if (o[i].rk) check_sampled(&im, o[i].rk, o[i].cw, 0);
    else check_buffer_reads(&im);
    check_writes(&im, o[i].wk, 0);
    free_image(&im);
  }
  check_queries();
  /* Kernels specialised for their images' formats: every pairing of the fast formats (RGBA
   * UNORM_INT8, RGBA FLOAT) in and out, and formats and samplers that take the general body. */
  const fmt_t fin[] = {fmt(RGBA, UNORM8), fmt(RGBA, FLOAT), fmt(BGRA, UNORM8), fmt(RGBA, UNORM16)};
  const fmt_t fout[] = {fmt(RGBA, UNORM8), fmt(RGBA, FLOAT), fmt(RGBA, HALF)};
  const unsigned fsmp[] = {EDGE | NEAREST, NORM | CLAMP | NEAREST, NORM | REPEAT | NEAREST, EDGE | LINEAR};
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 4; c++) check_filter(fin[a], fout[b], fsmp[c]);

  printf("%d rows, %d failed\n", rows, failed_rows);
  return failed_rows;
}
