// OpenCL 1.2 image built-ins (6.12.14) for cudacl, compiled once per process by ptxgen's own
// clang and linked into programs that call them (src/images.rs, bridge/images.cpp).
//
// An image argument is a __global pointer to the image's 64-byte descriptor (the contract
// between the runtime and ptxgen, written out in ptxgen's README, "Images"); a
// sampler is the OpenCL C sampler bits. Pixels live in a CUDA array read and written with the
// surface instructions suld.b/sust.b (x in bytes, .zero: an out-of-range access reads zeros and
// writes nothing, never faults), or, for image1d_buffer, in plain global memory. Addressing,
// filtering, the border colour and the format conversions of OpenCL 1.2 sections 8.2 and 8.3 are
// done here in software.
//
// The definitions carry the very names clang gives the calls (they are ordinary overloads of the
// built-ins), so the link needs no renaming. Two helpers are left for the link step to define,
// because OpenCL C cannot look inside an image or a sampler: __cudacl_desc(image) (the
// descriptor pointer: the image value itself) and __cudacl_sampler(sampler) (the bits).
// Everything is always_inline: the descriptor fields and sampler bits a switch looks at are the
// same for every work-item, and a constant sampler folds most of the code away.

#define CUDACL_INLINE __attribute__((always_inline))
#define OVL __attribute__((overloadable, always_inline))

// The coordinate arithmetic of section 8.2 rounds each step (u = s * w; floor(u - 0.5)); a fused
// multiply-add could move a coordinate on a texel boundary to the next texel.
#pragma OPENCL FP_CONTRACT OFF

// Integer min/max/clamp without libclc (this file is linked before it).
CUDACL_INLINE static int imin(int a, int b) { return a < b ? a : b; }
CUDACL_INLINE static int imax(int a, int b) { return a > b ? a : b; }
CUDACL_INLINE static int iclamp(int x, int lo, int hi) { return imin(imax(x, lo), hi); }
CUDACL_INLINE static uint umin(uint a, uint b) { return a < b ? a : b; }

// The descriptor (contract: "What a kernel receives").
struct cudacl_image {
  ulong surface;      // CUsurfObject (0 for image1d_buffer)
  ulong data;         // image1d_buffer: device address of pixel 0
  uint width, height, depth, array_size;
  uint order;         // CL_R ... (cl.h values)
  uint type;          // CL_SNORM_INT8 ... (cl.h values)
  uint element_size;  // bytes per pixel
  uint channels;      // channels stored per pixel
  uint image_type;
  uint reserved;
  ulong texture;      // 2-D RGBA FLOAT images: a CUtexObject for texel fetches (else 0)
};
typedef __global const struct cudacl_image *desc_t;

#define DESC_HELPER(T) desc_t __attribute__((overloadable)) __cudacl_desc(T);
DESC_HELPER(read_only image1d_t) DESC_HELPER(write_only image1d_t)
DESC_HELPER(read_only image1d_buffer_t) DESC_HELPER(write_only image1d_buffer_t)
DESC_HELPER(read_only image1d_array_t) DESC_HELPER(write_only image1d_array_t)
DESC_HELPER(read_only image2d_t) DESC_HELPER(write_only image2d_t)
DESC_HELPER(read_only image2d_array_t) DESC_HELPER(write_only image2d_array_t)
DESC_HELPER(read_only image3d_t) DESC_HELPER(write_only image3d_t)
uint __cudacl_sampler(sampler_t);

// cl.h values.
#define ORDER_R 0x10B0
#define ORDER_A 0x10B1
#define ORDER_RG 0x10B2
#define ORDER_RA 0x10B3
#define ORDER_RGBA 0x10B5
#define ORDER_BGRA 0x10B6
#define ORDER_ARGB 0x10B7
#define ORDER_INTENSITY 0x10B8
#define ORDER_LUMINANCE 0x10B9
#define ORDER_Rx 0x10BA
#define ORDER_RGx 0x10BB
#define TYPE_SNORM_INT8 0x10D0
#define TYPE_SNORM_INT16 0x10D1
#define TYPE_UNORM_INT8 0x10D2
#define TYPE_UNORM_INT16 0x10D3
#define TYPE_SIGNED_INT8 0x10D7
#define TYPE_SIGNED_INT16 0x10D8
#define TYPE_SIGNED_INT32 0x10D9
#define TYPE_UNSIGNED_INT8 0x10DA
#define TYPE_UNSIGNED_INT16 0x10DB
#define TYPE_UNSIGNED_INT32 0x10DC
#define TYPE_HALF_FLOAT 0x10DD
#define TYPE_FLOAT 0x10DE

// Sampler bits (clang's CLK_* values).
#define SMP_NORMALIZED 0x1
#define SMP_ADDRESS_MASK 0xE
#define SMP_ADDRESS_CLAMP_TO_EDGE 0x2
#define SMP_ADDRESS_CLAMP 0x4
#define SMP_ADDRESS_REPEAT 0x6
#define SMP_ADDRESS_MIRRORED_REPEAT 0x8
#define SMP_FILTER_LINEAR 0x20

// Geometries (compile-time constants in every public function).
#define G1D 0
#define G1DA 1
#define G2D 2
#define G2DA 3
#define G3D 4
#define GBUF 5

// ---------------------------------------------------------------------------------------------
// Raw pixel access: the pixel's bytes as up to four 32-bit words (little-endian, zero-filled).
// Coordinates: x, y, z where z is the depth index (3-D) or the layer (arrays).
// ---------------------------------------------------------------------------------------------

// One suld/sust per geometry and pixel size; COORD names the coordinate operands as PTX wants
// them (arrays: the layer first; 3-D and 2-D arrays take a 4-vector whose last element is unused).
#define SURFACE_ACCESS(NAME, GEOM, COORD)                                                          \
  CUDACL_INLINE static uint4 suld_##NAME(ulong s, int x, int y, int z, uint esz) {                \
    int w = 0;                                                                                     \
    uint a = 0, b = 0, c = 0, d = 0;                                                               \
    ushort h = 0;                                                                                  \
    if (esz == 1) {                                                                                \
      __asm__("suld.b." GEOM ".b8.zero {%[a]}, [%[s], " COORD "];"                                 \
              : [a] "=h"(h) : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w));         \
      a = h & 0xffu;                                                                               \
    } else if (esz == 2) {                                                                         \
      __asm__("suld.b." GEOM ".b16.zero {%[a]}, [%[s], " COORD "];"                                \
              : [a] "=h"(h) : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w));         \
      a = h;                                                                                       \
    } else if (esz == 4) {                                                                         \
      __asm__("suld.b." GEOM ".b32.zero {%[a]}, [%[s], " COORD "];"                                \
              : [a] "=r"(a) : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w));         \
    } else if (esz == 8) {                                                                         \
      __asm__("suld.b." GEOM ".v2.b32.zero {%[a], %[b]}, [%[s], " COORD "];"                       \
              : [a] "=r"(a), [b] "=r"(b) : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z),         \
                [w] "r"(w));                                                                       \
    } else {                                                                                       \
      __asm__("suld.b." GEOM ".v4.b32.zero {%[a], %[b], %[c], %[d]}, [%[s], " COORD "];"           \
              : [a] "=r"(a), [b] "=r"(b), [c] "=r"(c), [d] "=r"(d)                                 \
              : [s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w));                       \
    }                                                                                              \
    return (uint4)(a, b, c, d);                                                                    \
  }                                                                                                \
  CUDACL_INLINE static void sust_##NAME(ulong s, int x, int y, int z, uint esz, uint4 v) {        \
    int w = 0;                                                                                     \
    if (esz == 1 || esz == 2) {                                                                    \
      ushort h = (ushort)v.x;                                                                      \
      if (esz == 1)                                                                                \
        __asm__ volatile("sust.b." GEOM ".b8.zero [%[s], " COORD "], {%[a]};" ::[s] "l"(s),        \
                         [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w), [a] "h"(h)                \
                         : "memory");                                                              \
      else                                                                                         \
        __asm__ volatile("sust.b." GEOM ".b16.zero [%[s], " COORD "], {%[a]};" ::[s] "l"(s),       \
                         [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w), [a] "h"(h)                \
                         : "memory");                                                              \
    } else if (esz == 4) {                                                                         \
      __asm__ volatile("sust.b." GEOM ".b32.zero [%[s], " COORD "], {%[a]};" ::[s] "l"(s),         \
                       [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w), [a] "r"(v.x)                \
                       : "memory");                                                                \
    } else if (esz == 8) {                                                                         \
      __asm__ volatile("sust.b." GEOM ".v2.b32.zero [%[s], " COORD "], {%[a], %[b]};" ::[s] "l"(s), \
                       [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w), [a] "r"(v.x), [b] "r"(v.y)  \
                       : "memory");                                                                \
    } else {                                                                                       \
      __asm__ volatile("sust.b." GEOM ".v4.b32.zero [%[s], " COORD "], {%[a], %[b], %[c], %[d]};"  \
                       ::[s] "l"(s), [x] "r"(x), [y] "r"(y), [z] "r"(z), [w] "r"(w), [a] "r"(v.x), \
                       [b] "r"(v.y), [c] "r"(v.z), [d] "r"(v.w)                                    \
                       : "memory");                                                                \
    }                                                                                              \
  }

SURFACE_ACCESS(1d, "1d", "{%[x]}")
SURFACE_ACCESS(2d, "2d", "{%[x], %[y]}")
SURFACE_ACCESS(3d, "3d", "{%[x], %[y], %[z], %[w]}")
SURFACE_ACCESS(a1d, "a1d", "{%[z], %[x]}")
SURFACE_ACCESS(a2d, "a2d", "{%[z], %[x], %[y], %[w]}")

// image1d_buffer: plain global memory, pixel x at data + x * element_size; outside the image a
// read gives zeros and a write does nothing.
CUDACL_INLINE static uint4 buffer_load(desc_t d, int x, uint esz) {
  if ((uint)x >= d->width) return (uint4)(0);
  __global const uchar *p = (__global const uchar *)d->data + (ulong)(uint)x * esz;
  switch (esz) {
  case 1: return (uint4)(*p, 0, 0, 0);
  case 2: return (uint4)(*(__global const ushort *)p, 0, 0, 0);
  case 4: return (uint4)(*(__global const uint *)p, 0, 0, 0);
  case 8: return (uint4)(*(__global const uint2 *)p, 0, 0);
  default: return *(__global const uint4 *)p;
  }
}

CUDACL_INLINE static void buffer_store(desc_t d, int x, uint esz, uint4 v) {
  if ((uint)x >= d->width) return;
  __global uchar *p = (__global uchar *)d->data + (ulong)(uint)x * esz;
  switch (esz) {
  case 1: *p = (uchar)v.x; break;
  case 2: *(__global ushort *)p = (ushort)v.x; break;
  case 4: *(__global uint *)p = v.x; break;
  case 8: *(__global uint2 *)p = v.xy; break;
  default: *(__global uint4 *)p = v; break;
  }
}

CUDACL_INLINE static uint4 load_raw(desc_t d, int g, int x, int y, int z) {
  uint esz = d->element_size;
  ulong s = d->surface;
  int bx = x * (int)esz;
  switch (g) {
  case G1D: return suld_1d(s, bx, 0, 0, esz);
  case G1DA: return suld_a1d(s, bx, 0, z, esz);
  case G2D: return suld_2d(s, bx, y, 0, esz);
  case G2DA: return suld_a2d(s, bx, y, z, esz);
  case G3D: return suld_3d(s, bx, y, z, esz);
  default: return buffer_load(d, x, esz);
  }
}

CUDACL_INLINE static void store_raw(desc_t d, int g, int x, int y, int z, uint4 v) {
  uint esz = d->element_size;
  ulong s = d->surface;
  int bx = x * (int)esz;
  switch (g) {
  case G1D: sust_1d(s, bx, 0, 0, esz, v); break;
  case G1DA: sust_a1d(s, bx, 0, z, esz, v); break;
  case G2D: sust_2d(s, bx, y, 0, esz, v); break;
  case G2DA: sust_a2d(s, bx, y, z, esz, v); break;
  case G3D: sust_3d(s, bx, y, z, esz, v); break;
  default: buffer_store(d, x, esz, v); break;
  }
}

// Bytes per channel of a data type (packed types are not offered).
CUDACL_INLINE static uint channel_bytes(uint type) {
  switch (type) {
  case TYPE_SNORM_INT8: case TYPE_UNORM_INT8: case TYPE_SIGNED_INT8: case TYPE_UNSIGNED_INT8:
    return 1;
  case TYPE_SNORM_INT16: case TYPE_UNORM_INT16: case TYPE_SIGNED_INT16: case TYPE_UNSIGNED_INT16:
  case TYPE_HALF_FLOAT:
    return 2;
  default:
    return 4;
  }
}

// The stored channels' bits (zero-extended), in storage order.
CUDACL_INLINE static uint4 unpack(uint4 w, uint bytes) {
  if (bytes == 1) return (uint4)(w.x & 0xffu, (w.x >> 8) & 0xffu, (w.x >> 16) & 0xffu, w.x >> 24);
  if (bytes == 2) return (uint4)(w.x & 0xffffu, w.x >> 16, w.y & 0xffffu, w.y >> 16);
  return w;
}

CUDACL_INLINE static uint4 pack(uint4 c, uint bytes) {
  if (bytes == 1)
    return (uint4)((c.x & 0xffu) | (c.y & 0xffu) << 8 | (c.z & 0xffu) << 16 | c.w << 24, 0, 0, 0);
  if (bytes == 2) return (uint4)((c.x & 0xffffu) | c.y << 16, (c.z & 0xffffu) | c.w << 16, 0, 0);
  return c;
}

// ---------------------------------------------------------------------------------------------
// Conversions (OpenCL 1.2 section 8.3), in storage order.
// ---------------------------------------------------------------------------------------------

CUDACL_INLINE static float half_to_float(uint h) {
  float f;
  ushort v = (ushort)h;
  __asm__("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
  return f;
}

CUDACL_INLINE static uint float_to_half(float f) {
  ushort h;
  __asm__("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

CUDACL_INLINE static float4 fmax4(float4 v, float m) {
  return (float4)(__builtin_fmaxf(v.x, m), __builtin_fmaxf(v.y, m), __builtin_fmaxf(v.z, m), __builtin_fmaxf(v.w, m));
}
CUDACL_INLINE static float4 to_float(uint4 c) { return __builtin_convertvector(c, float4); }
CUDACL_INLINE static float4 to_float_signed(int4 c) { return __builtin_convertvector(c, float4); }

// c / d, correctly rounded like the division, for the channel values c of a normalized format
// (integers of at most 16 bits) and d = 255, 65535, 127 or 32767: c * (hi + lo) with one
// rounding, where hi is 1 / d cut to 24 - b significant bits (b = the channel's bits, so c * hi is
// exact) and lo the rest of 1 / d: one multiplication and one FMA per channel, where an IEEE
// division (div.rn.f32) costs about ten instructions and a slow-path branch. Exact for every such
// c (checked exhaustively by images.rs's test
// div_norm_equals_the_division_for_every_normalized_channel_value, which derives hi and lo the
// same way).
CUDACL_INLINE static float div_norm(float c, float hi, float lo) { return __builtin_fmaf(c, lo, c * hi); }
CUDACL_INLINE static float4 div_norm4(float4 c, float hi, float lo) {
  return (float4)(div_norm(c.x, hi, lo), div_norm(c.y, hi, lo), div_norm(c.z, hi, lo), div_norm(c.w, hi, lo));
}
#define DIV255_HI 0x1.01p-8f
#define DIV255_LO 0x1.010102p-24f
#define DIV65535_HI 0x1p-16f
#define DIV65535_LO 0x1.0001p-32f
#define DIV127_HI 0x1.0204p-7f
#define DIV127_LO 0x1.020408p-28f
#define DIV32767_HI 0x1p-15f
#define DIV32767_LO 0x1.0002p-30f

// Pixel words -> float channels (read_imagef).
CUDACL_INLINE static float4 texel_f(uint type, uint4 w) {
  uint4 c = unpack(w, channel_bytes(type));
  switch (type) {
  case TYPE_UNORM_INT8: return div_norm4(to_float(c), DIV255_HI, DIV255_LO);
  case TYPE_UNORM_INT16: return div_norm4(to_float(c), DIV65535_HI, DIV65535_LO);
  case TYPE_SNORM_INT8:
    // -128 and -127 both read as -1.0.
    return fmax4(div_norm4(to_float_signed(__builtin_convertvector(__builtin_convertvector(c, char4), int4)), DIV127_HI, DIV127_LO), -1.0f);
  case TYPE_SNORM_INT16:
    return fmax4(div_norm4(to_float_signed(__builtin_convertvector(__builtin_convertvector(c, short4), int4)), DIV32767_HI, DIV32767_LO), -1.0f);
  case TYPE_HALF_FLOAT:
    return (float4)(half_to_float(c.x), half_to_float(c.y), half_to_float(c.z), half_to_float(c.w));
  case TYPE_SIGNED_INT8: // read_imagef of integer data is undefined: the value as a float
  case TYPE_SIGNED_INT16:
  case TYPE_SIGNED_INT32:
  case TYPE_UNSIGNED_INT8:
  case TYPE_UNSIGNED_INT16:
  case TYPE_UNSIGNED_INT32:
    return to_float(c);
  default: return as_float4(c);
  }
}

// Pixel words -> integer channels (read_imagei: sign-extended; read_imageui: zero-extended).
CUDACL_INLINE static uint4 texel_i(uint type, uint4 w) {
  uint4 c = unpack(w, channel_bytes(type));
  switch (type) {
  case TYPE_SIGNED_INT8: return as_uint4(__builtin_convertvector(__builtin_convertvector(c, char4), int4));
  case TYPE_SIGNED_INT16: return as_uint4(__builtin_convertvector(__builtin_convertvector(c, short4), int4));
  default: return c;
  }
}

// convert_<int>_sat_rte(x) for x already scaled: rounded to nearest even, saturated to the
// integer bounds lo..hi; NaN gives 0. cvt.rni.s32.f32 rounds to nearest even and saturates to
// the s32 range in one instruction; clamping the integer afterwards equals clamping the float
// before rounding, as lo and hi are integers. NaN is tested here, not left to the conversion.
CUDACL_INLINE static int sat_rte(float x, int lo, int hi) {
  int i;
  __asm__("cvt.rni.s32.f32 %0, %1;" : "=r"(i) : "f"(x));
  return x != x ? 0 : iclamp(i, lo, hi);
}

// f clamped to [0, 1] with NaN giving +0 (cvt.sat: PTX defines NaN -> +0 for .sat); then for
// unsigned normalized channels round(sat01(f) * max) equals sat_rte(f * max, 0, max) for every f
// (equal products inside [0, 1], 0 and max outside, 0 for NaN) in one instruction less.
CUDACL_INLINE static float sat01(float f) {
  float r;
  __asm__("cvt.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(f));
  return r;
}
// x rounded to the nearest integer, ties to even (x within [0, 65535] here).
CUDACL_INLINE static uint rni_u(float x) {
  uint i;
  __asm__("cvt.rni.u32.f32 %0, %1;" : "=r"(i) : "f"(x));
  return i;
}

// float channels -> stored bits (write_imagef), one switch for the four channels.
#define MAP4(F) ((uint4)(F(s.x), F(s.y), F(s.z), F(s.w)))
#define UNORM8(f) rni_u(sat01(f) * 255.0f)
#define UNORM16(f) rni_u(sat01(f) * 65535.0f)
#define SNORM8(f) ((uint)sat_rte((f) * 127.0f, -127, 127) & 0xffu)
#define SNORM16(f) ((uint)sat_rte((f) * 32767.0f, -32767, 32767) & 0xffffu)
CUDACL_INLINE static uint4 from_float4(uint type, float4 s) {
  switch (type) {
  case TYPE_UNORM_INT8: return MAP4(UNORM8);
  case TYPE_UNORM_INT16: return MAP4(UNORM16);
  // Signed normalized values saturate at -1.0 (-127, -32767), as the CTS's reference and NVIDIA's
  // OpenCL do; section 8.3.1.1's convert_char_sat_rte(f * 127.0f) would give -128 below -1.0079,
  // which reads back as -1.0 all the same.
  case TYPE_SNORM_INT8: return MAP4(SNORM8);
  case TYPE_SNORM_INT16: return MAP4(SNORM16);
  case TYPE_HALF_FLOAT: return MAP4(float_to_half);
  default: return as_uint4(s); // CL_FLOAT (integer data written with write_imagef is undefined)
  }
}
#undef MAP4
#undef UNORM8
#undef UNORM16
#undef SNORM8
#undef SNORM16

// int channel -> stored bits (write_imagei: saturated to 8/16-bit signed channels).
CUDACL_INLINE static uint from_int(uint type, int v) {
  switch (type) {
  case TYPE_SIGNED_INT8: return (uint)iclamp(v, -128, 127) & 0xffu;
  case TYPE_SIGNED_INT16: return (uint)iclamp(v, -32768, 32767) & 0xffffu;
  default: return (uint)v;
  }
}

// uint channel -> stored bits (write_imageui: saturated to 8/16-bit channels).
CUDACL_INLINE static uint from_uint(uint type, uint v) {
  switch (type) {
  case TYPE_UNSIGNED_INT8: return umin(v, 255u);
  case TYPE_UNSIGNED_INT16: return umin(v, 65535u);
  default: return v;
  }
}

// ---------------------------------------------------------------------------------------------
// Channel order: storage order <-> (r, g, b, a). Missing colour channels read as 0, a missing
// alpha as 1 (`one`); all-zero bits (the border) thus give (0,0,0,1) for orders without alpha.
// ---------------------------------------------------------------------------------------------

#define ORDER_READ(NAME, T)                                                                        \
  CUDACL_INLINE static T NAME(uint order, T v, T one) {                                          \
    T zero = (T)(0);                                                                               \
    switch (order) {                                                                               \
    case ORDER_R: case ORDER_Rx: return (T)(v.x, zero.x, zero.x, one.x);                           \
    case ORDER_A: return (T)(zero.x, zero.x, zero.x, v.x);                                         \
    case ORDER_RG: case ORDER_RGx: return (T)(v.x, v.y, zero.x, one.x);                            \
    case ORDER_RA: return (T)(v.x, zero.x, zero.x, v.y);                                           \
    case ORDER_BGRA: return v.zyxw;                                                                \
    case ORDER_ARGB: return v.yzwx;                                                                \
    case ORDER_INTENSITY: return v.xxxx;                                                           \
    case ORDER_LUMINANCE: return (T)(v.x, v.x, v.x, one.x);                                        \
    default: return v;                                                                             \
    }                                                                                              \
  }
ORDER_READ(order_read_f, float4)
ORDER_READ(order_read_u, uint4)

// (r, g, b, a) -> the stored channels, in storage order (unused ones are dropped by pack).
#define ORDER_WRITE(NAME, T)                                                                       \
  CUDACL_INLINE static T NAME(uint order, T v) {                                                 \
    switch (order) {                                                                               \
    case ORDER_A: return v.wwww;                                                                   \
    case ORDER_RA: return v.xwxw;                                                                  \
    case ORDER_BGRA: return v.zyxw;                                                                \
    case ORDER_ARGB: return v.wxyz;                                                                \
    default: return v;                                                                             \
    }                                                                                              \
  }
ORDER_WRITE(order_write_f, float4)
ORDER_WRITE(order_write_u, uint4)

// ---------------------------------------------------------------------------------------------
// Addressing and filtering (OpenCL 1.2 section 8.2)
// ---------------------------------------------------------------------------------------------

// A float (already floored) as an int index kept within [-1, n]: every index outside the image
// reads the border, and the conversion of huge values or NaN stays defined.
CUDACL_INLINE static int to_index(float f, int n) {
  return (int)__builtin_fminf(__builtin_fmaxf(f, -1.0f), (float)n);
}

// The array layer: rounded and clamped, never filtered.
CUDACL_INLINE static int layer_f(float c, uint n) {
  return iclamp(to_index(__builtin_rintf(c), (int)n), 0, (int)n - 1);
}
CUDACL_INLINE static int layer_i(int c, uint n) { return iclamp(c, 0, (int)n - 1); }

// The texel of a nearest-filtered float coordinate along one dimension of n texels.
CUDACL_INLINE static int nearest_index(float s, int n, uint smp) {
  uint addr = smp & SMP_ADDRESS_MASK;
  float fn = (float)n;
  if (addr == SMP_ADDRESS_REPEAT) {
    int i = to_index(__builtin_floorf((s - __builtin_floorf(s)) * fn), n);
    return i > n - 1 ? i - n : i;
  }
  if (addr == SMP_ADDRESS_MIRRORED_REPEAT) {
    float m = __builtin_fabsf(s - 2.0f * __builtin_rintf(0.5f * s));
    return imin(to_index(__builtin_floorf(m * fn), n), n - 1);
  }
  float u = (smp & SMP_NORMALIZED) ? s * fn : s;
  int i = to_index(__builtin_floorf(u), n);
  return addr == SMP_ADDRESS_CLAMP_TO_EDGE ? iclamp(i, 0, n - 1) : i;
}

// The two texels and the weight of the second for a linear-filtered float coordinate.
CUDACL_INLINE static float linear_index(float s, int n, uint smp, int *i0, int *i1) {
  uint addr = smp & SMP_ADDRESS_MASK;
  float fn = (float)n, u;
  if (addr == SMP_ADDRESS_REPEAT) {
    u = (s - __builtin_floorf(s)) * fn - 0.5f;
  } else if (addr == SMP_ADDRESS_MIRRORED_REPEAT) {
    u = __builtin_fabsf(s - 2.0f * __builtin_rintf(0.5f * s)) * fn - 0.5f;
  } else {
    u = ((smp & SMP_NORMALIZED) ? s * fn : s) - 0.5f;
  }
  float fu = __builtin_floorf(u);
  // Each kept within [-1, n] on its own: i1 is i0 + 1 also where i0 is off the image (the border).
  int a = to_index(fu, n), b = to_index(fu + 1.0f, n);
  if (addr == SMP_ADDRESS_REPEAT) {
    a = a < 0 ? a + n : a;
    b = b > n - 1 ? b - n : b;
  } else if (addr == SMP_ADDRESS_MIRRORED_REPEAT) {
    a = imax(a, 0);
    b = imin(b, n - 1);
  } else if (addr == SMP_ADDRESS_CLAMP_TO_EDGE) {
    a = iclamp(a, 0, n - 1);
    b = iclamp(b, 0, n - 1);
  }
  *i0 = a;
  *i1 = b;
  return u - fu;
}

// An integer coordinate with a sampler (which must be unnormalized and nearest): clamped to the
// edge, or left for the border check.
CUDACL_INLINE static int int_index(int x, int n, uint smp) {
  return (smp & SMP_ADDRESS_MASK) == SMP_ADDRESS_CLAMP_TO_EDGE ? iclamp(x, 0, n - 1) : x;
}

CUDACL_INLINE static int dims_of(int g) { return g == G3D ? 3 : (g == G2D || g == G2DA) ? 2 : 1; }

// The pixel words at (x, y, z), or zeros (the border) outside the image; z is the layer of an
// array (already clamped) or the depth index.
CUDACL_INLINE static uint4 fetch(desc_t d, int g, int x, int y, int z) {
  int dims = dims_of(g);
  bool inside = (uint)x < d->width;
  if (dims > 1) inside = inside && (uint)y < d->height;
  if (dims > 2) inside = inside && (uint)z < d->depth;
  uint4 w = load_raw(d, g, x, y, z);
  return inside ? w : (uint4)(0);
}

// Where the layer of an array sits in a coordinate vector: 1-D arrays (x, layer), 2-D arrays
// (x, y, layer).
CUDACL_INLINE static float layer_coord_f(int g, float4 c) { return g == G1DA ? c.y : c.z; }
CUDACL_INLINE static int layer_coord_i(int g, int4 c) { return g == G1DA ? c.y : c.z; }

// The four texels around (x0..x1, y0..y1) in plane z, weighted (a, b: the weights of x1, y1).
CUDACL_INLINE static float4 bilinear(desc_t d, int g, uint type, int x0, int x1, int y0, int y1, int z,
                                     float a, float b) {
  float4 t00 = texel_f(type, fetch(d, g, x0, y0, z)), t10 = texel_f(type, fetch(d, g, x1, y0, z));
  float4 t01 = texel_f(type, fetch(d, g, x0, y1, z)), t11 = texel_f(type, fetch(d, g, x1, y1, z));
  return (1.0f - a) * (1.0f - b) * t00 + a * (1.0f - b) * t10 + (1.0f - a) * b * t01 + a * b * t11;
}

// read_imagef with a sampler and float coordinates: the filtered channels, in (r, g, b, a).
CUDACL_INLINE static float4 sample_f(desc_t d, int g, uint smp, float4 c) {
  int dims = dims_of(g);
  int w = (int)d->width, h = (int)d->height, dep = (int)d->depth;
  uint type = d->type;
  int z0 = 0;
  if (g == G1DA || g == G2DA) z0 = layer_f(layer_coord_f(g, c), d->array_size);
  if (!(smp & SMP_FILTER_LINEAR)) {
    int x = nearest_index(c.x, w, smp);
    int y = dims > 1 ? nearest_index(c.y, h, smp) : 0;
    int z = dims > 2 ? nearest_index(c.z, dep, smp) : z0;
    return order_read_f(d->order, texel_f(type, fetch(d, g, x, y, z)), (float4)(1.0f));
  }
  int x0, x1, y0 = 0, y1 = 0, z1 = z0;
  float a = linear_index(c.x, w, smp, &x0, &x1);
  if (dims == 1) {
    float4 t0 = texel_f(type, fetch(d, g, x0, 0, z0)), t1 = texel_f(type, fetch(d, g, x1, 0, z0));
    return order_read_f(d->order, (1.0f - a) * t0 + a * t1, (float4)(1.0f));
  }
  float b = linear_index(c.y, h, smp, &y0, &y1);
  if (dims == 2) return order_read_f(d->order, bilinear(d, g, type, x0, x1, y0, y1, z0, a, b), (float4)(1.0f));
  float r = linear_index(c.z, dep, smp, &z0, &z1);
  float4 lo = bilinear(d, g, type, x0, x1, y0, y1, z0, a, b);
  float4 hi = bilinear(d, g, type, x0, x1, y0, y1, z1, a, b);
  return order_read_f(d->order, (1.0f - r) * lo + r * hi, (float4)(1.0f));
}

// read_imagei/ui with a sampler and float coordinates: nearest (a linear sampler is undefined
// for them in OpenCL 1.2; it is taken as nearest).
CUDACL_INLINE static uint4 sample_u(desc_t d, int g, uint smp, float4 c) {
  int dims = dims_of(g);
  int z = 0;
  if (g == G1DA || g == G2DA) z = layer_f(layer_coord_f(g, c), d->array_size);
  int x = nearest_index(c.x, (int)d->width, smp);
  int y = dims > 1 ? nearest_index(c.y, (int)d->height, smp) : 0;
  if (dims > 2) z = nearest_index(c.z, (int)d->depth, smp);
  return order_read_u(d->order, texel_i(d->type, fetch(d, g, x, y, z)), (uint4)(1));
}

// Reads with integer coordinates and a sampler: the pixel words (border outside).
CUDACL_INLINE static uint4 sample_int_coords(desc_t d, int g, uint smp, int4 c) {
  int dims = dims_of(g);
  int z = 0;
  if (g == G1DA || g == G2DA) z = layer_i(layer_coord_i(g, c), d->array_size);
  int x = int_index(c.x, (int)d->width, smp);
  int y = dims > 1 ? int_index(c.y, (int)d->height, smp) : 0;
  if (dims > 2) z = int_index(c.z, (int)d->depth, smp);
  return fetch(d, g, x, y, z);
}

// Reads without a sampler: the pixel words (zeros outside the image).
CUDACL_INLINE static uint4 load_at(desc_t d, int g, int4 c) {
  int dims = dims_of(g);
  int z = (g == G1DA || g == G2DA) ? layer_coord_i(g, c) : dims > 2 ? c.z : 0;
  return load_raw(d, g, c.x, dims > 1 ? c.y : 0, z);
}

CUDACL_INLINE static void store_at(desc_t d, int g, int4 c, uint4 bits) {
  int dims = dims_of(g);
  int z = (g == G1DA || g == G2DA) ? layer_coord_i(g, c) : dims > 2 ? c.z : 0;
  store_raw(d, g, c.x, dims > 1 ? c.y : 0, z, pack(bits, channel_bytes(d->type)));
}

CUDACL_INLINE static float4 words_f(desc_t d, uint4 w) {
  return order_read_f(d->order, texel_f(d->type, w), (float4)(1.0f));
}
CUDACL_INLINE static uint4 words_u(desc_t d, uint4 w) {
  return order_read_u(d->order, texel_i(d->type, w), (uint4)(1));
}

CUDACL_INLINE static void write_f(desc_t d, int g, int4 c, float4 v) {
  uint type = d->type;
  store_at(d, g, c, from_float4(type, order_write_f(d->order, v)));
}
CUDACL_INLINE static void write_i(desc_t d, int g, int4 c, int4 v) {
  uint type = d->type;
  int4 s = as_int4(order_write_u(d->order, as_uint4(v)));
  store_at(d, g, c, (uint4)(from_int(type, s.x), from_int(type, s.y), from_int(type, s.z), from_int(type, s.w)));
}
CUDACL_INLINE static void write_u(desc_t d, int g, int4 c, uint4 v) {
  uint type = d->type;
  uint4 s = order_write_u(d->order, v);
  store_at(d, g, c, (uint4)(from_uint(type, s.x), from_uint(type, s.y), from_uint(type, s.z), from_uint(type, s.w)));
}

// ---------------------------------------------------------------------------------------------
// Fast paths (issue 13). Everything above is decided at run time on the descriptor and the
// sampler; inlined into a kernel, one read is a chain of uniform branches (filter, addressing,
// geometry, element size, data type, order) some 100 instructions long, and a loop of reads is
// not unrolled. So read_imagef (with a nearest sampler addressing NONE, CLAMP_TO_EDGE or CLAMP,
// or without a sampler) and write_imagef of 1-D, 2-D and 3-D images first test for the two
// commonest formats, RGBA UNORM_INT8 and RGBA FLOAT, and do those in straight-line code (one
// surface instruction, the conversion, no other branch); every other case calls the general code
// above out of line (noinline, reads also `pure`: the loop around a read stays small enough for
// LLVM to unroll, and the descriptor loads and tests are still hoisted out of it). Image arguments
// are marked noalias readonly dereferenceable by the link step (bridge/images.cpp), so the
// descriptor loads go through the non-coherent cache and may be hoisted past stores. Results are
// those of the general code, bit for bit (the fast pieces say why).
// ---------------------------------------------------------------------------------------------

#define FORMAT(order, type) ((ulong)(type) << 32 | (ulong)(order))
#define FORMAT_RGBA_UNORM8 FORMAT(ORDER_RGBA, TYPE_UNORM_INT8)
#define FORMAT_RGBA_FLOAT FORMAT(ORDER_RGBA, TYPE_FLOAT)

// The descriptor's order and data type (bytes 32 and 36) as one 64-bit word, as FORMAT makes it.
CUDACL_INLINE static ulong format_of(desc_t d) { return *(__global const ulong *)&d->order; }

CUDACL_INLINE static bool has_fast_path(int g) { return g == G1D || g == G2D || g == G3D; }

// Nearest filtering with addressing NONE (0), CLAMP_TO_EDGE (2) or CLAMP (4).
CUDACL_INLINE static bool fast_sampler(uint smp) {
  return (smp & (SMP_FILTER_LINEAR | SMP_ADDRESS_MASK)) <= SMP_ADDRESS_CLAMP;
}

// The fast paths convert between integers and floats without the conversion instructions
// (I2F, F2I: 16 per clock and SM on sm_90, an eighth of the FP32 rate; a 3x3 filter of RGBA8
// made 36 of them per pixel): through a float whose exponent makes its lowest mantissa bits an
// integer, M = 2^23 + 2^22 (ulp 1 over [2^23, 2^24)): a float x with |x| <= 2^21 becomes
// round(x) in the low bits of x + M (the FP32 add rounds to nearest even, as cvt.rni does), and
// floor(x) with the add rounding down. Bytes become floats through a subnormal (unorm8_f).
#define MAGIC 12582912.0f
#define MAGIC_BITS 0x4B400000u

// floor(x) for |x| <= 2^21 (a fast path's clamped coordinate): the add rounding down.
CUDACL_INLINE static int floor_small(float x) { return as_int(__nvvm_add_rm_f(x, MAGIC)) - (int)MAGIC_BITS; }

// nearest_index for fast_sampler's modes, the same index: floor(u) kept within [-1, n] (NONE,
// CLAMP) or [0, n - 1] (CLAMP_TO_EDGE). Clamping u to those integer bounds before the floor
// equals clamping after it (floor is monotone and keeps integers), and NaN becomes the lower
// bound, as nearest_index's fmax(floor(NaN), -1) does. Plain LLVM operations (no inline asm), so
// that an index that does not change in a loop (a filter's row) is computed once before it.
CUDACL_INLINE static int nearest_fast(float s, int n, uint smp) {
  bool edge = (smp & SMP_ADDRESS_MASK) == SMP_ADDRESS_CLAMP_TO_EDGE;
  float u = s * ((smp & SMP_NORMALIZED) ? (float)n : 1.0f);
  float lo = edge ? 0.0f : -1.0f, hi = (float)(edge ? n - 1 : n);
  return floor_small(__builtin_fminf(__builtin_fmaxf(u, lo), hi));
}

// The pixel words at (x, y, z) of a fast-path image (esz: 4 or 16, a constant). Outside the
// image (the border of a CLAMP sampler: x or y -1 or n) suld's .zero mode reads zeros, the
// border colour of RGBA formats; reads without a sampler outside the image are undefined.
CUDACL_INLINE static uint4 fetch_fast(ulong s, int g, uint esz, int x, int y, int z) {
  int bx = x * (int)esz;
  return g == G1D ? suld_1d(s, bx, 0, 0, esz) : g == G2D ? suld_2d(s, bx, y, 0, esz) : suld_3d(s, bx, y, z, esz);
}

// The texel at (x, y, z) of a fast-path RGBA FLOAT image, as floats. A 2-D image is read through
// its texture object t (the host makes one for every 2-D RGBA FLOAT image) by a texture fetch at
// the integer texel: point sampling of the stored bits, a zero border outside the image like the
// surface load's .zero mode, and faster for 16-byte texels (a 3x3 filter in CUDA on the H100:
// 1755 GB/s against 1529 with surface loads). No test of t: a branch per read keeps a filter's
// fetches from being issued together.
CUDACL_INLINE static float4 fetch_rgba32f(ulong s, ulong t, int g, int x, int y, int z) {
  if (g == G2D) {
    float4 v;
    __asm__("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(t), "r"(x), "r"(y));
    return v;
  }
  return as_float4(fetch_fast(s, g, 16, x, y, z));
}

CUDACL_INLINE static void store_fast(ulong s, int g, uint esz, int x, int y, int z, uint4 v) {
  int bx = x * (int)esz;
  if (g == G1D) sust_1d(s, bx, 0, 0, esz, v);
  else if (g == G2D) sust_2d(s, bx, y, 0, esz, v);
  else sust_3d(s, bx, y, z, esz, v);
}

// byte k of w, c, divided by 255 as texel_f's UNORM_INT8 case does (div_norm: c * hi + c * lo,
// one rounding), in three instructions instead of four: one prmt puts c in bits 16..23 of an
// otherwise zero word, whose float is c * 2^-133 exactly (a subnormal, or for c >= 128 the
// smallest normal exponent, where bits * 2^-149 is the value all the same), so no subtraction
// of a magic number is needed to get at c; the reciprocal's two parts are scaled by 2^133 to
// match (DIV255_HI_S, DIV255_LO_S), and (c * 2^-133) * (hi * 2^133) is c * hi exactly. Inline
// asm without .ftz: the subnormal must survive a kernel built with -cl-denorms-are-zero, whose
// own f32 instructions flush (FP32 subnormals cost nothing extra in the FMA pipe).
// images.rs's test unorm8_through_a_subnormal_equals_the_division checks every c.
#define DIV255_HI_S 0x1.01p125f
#define DIV255_LO_S 0x1.010102p109f
CUDACL_INLINE static float unorm8_f(uint w, uint k) {
  float v = as_float(__nvvm_prmt(w, 0u, 0x4044u | k << 8)), r;
  __asm__("{\n\t.reg .f32 t;\n\tmul.rn.f32 t, %1, %2;\n\tfma.rn.f32 %0, %1, %3, t;\n\t}"
          : "=f"(r)
          : "f"(v), "f"(DIV255_HI_S), "f"(DIV255_LO_S));
  return r;
}

// RGBA UNORM_INT8 pixel word -> (r, g, b, a): texel_f's UNORM_INT8 case, order RGBA (the same
// channel floats, divided the same way).
CUDACL_INLINE static float4 rgba8_f(uint w) {
  return (float4)(unorm8_f(w, 0), unorm8_f(w, 1), unorm8_f(w, 2), unorm8_f(w, 3));
}

// round(sat01(f) * 255) (0 ... 255) in the low byte of the result (its other bits are MAGIC's):
// rni_u(sat01(f) * 255.0f)'s value, the rounding done by the add.
CUDACL_INLINE static uint unorm8_low(float f) { return as_uint(sat01(f) * 255.0f + MAGIC); }

// (r, g, b, a) -> RGBA UNORM_INT8 pixel word: from_float4's UNORM_INT8 case, packed.
CUDACL_INLINE static uint f_rgba8(float4 v) {
  // prmt: bytes 0 of r and g into bytes 0 and 1, of b and a likewise, then the two halves.
  uint rg = __nvvm_prmt(unorm8_low(v.x), unorm8_low(v.y), 0x0040u);
  uint ba = __nvvm_prmt(unorm8_low(v.z), unorm8_low(v.w), 0x0040u);
  return __nvvm_prmt(rg, ba, 0x5410u);
}

// The general code, out of line, one function per geometry (g constant inside).
#define OUT_OF_LINE(G)                                                                             \
  __attribute__((noinline, pure)) static float4 sample_f_##G(desc_t d, uint smp, float4 c) {       \
    return sample_f(d, G, smp, c);                                                                 \
  }                                                                                                \
  __attribute__((noinline, pure)) static float4 load_f_##G(desc_t d, int4 c) {                     \
    return words_f(d, load_at(d, G, c));                                                           \
  }                                                                                                \
  __attribute__((noinline)) static void write_f_##G(desc_t d, int4 c, float4 v) {                 \
    write_f(d, G, c, v);                                                                           \
  }
OUT_OF_LINE(G1D)
OUT_OF_LINE(G2D)
OUT_OF_LINE(G3D)

// The general code of geometry g: out of line for the fast path's geometries, inline otherwise.
CUDACL_INLINE static float4 sample_f_general(desc_t d, int g, uint smp, float4 c) {
  return g == G1D ? sample_f_G1D(d, smp, c) : g == G2D ? sample_f_G2D(d, smp, c) : g == G3D ? sample_f_G3D(d, smp, c) : sample_f(d, g, smp, c);
}
CUDACL_INLINE static float4 load_f_general(desc_t d, int g, int4 c) {
  return g == G1D ? load_f_G1D(d, c) : g == G2D ? load_f_G2D(d, c) : g == G3D ? load_f_G3D(d, c) : words_f(d, load_at(d, g, c));
}
CUDACL_INLINE static void write_f_general(desc_t d, int g, int4 c, float4 v) {
  if (g == G1D) write_f_G1D(d, c, v);
  else if (g == G2D) write_f_G2D(d, c, v);
  else if (g == G3D) write_f_G3D(d, c, v);
  else write_f(d, g, c, v);
}

// The descriptor fields a sampled read's fast path needs.
struct fast_desc {
  ulong surface, format, texture;
  int w, h, dep;
};
// The texture object fetch_rgba32f reads a geometry-g image through (2-D images only).
CUDACL_INLINE static ulong texture_of(desc_t d, int g) { return g == G2D ? d->texture : 0; }
CUDACL_INLINE static struct fast_desc fast_desc_of(desc_t d, int g) {
  struct fast_desc f = {d->surface, format_of(d), texture_of(d, g), (int)d->width,
                        g != G1D ? (int)d->height : 0, g == G3D ? (int)d->depth : 0};
  return f;
}

// Which fast path a read or write takes: FAST_RGBA8, FAST_RGBA32F or 0 (the general code), as
// one 32-bit value computed from the descriptor (and the sampler) before any branch, so that
// each read in a loop tests one register (a 64-bit compare is two instructions, and LLVM would
// test the sampler and the format apart).
#define FAST_RGBA8 1
#define FAST_RGBA32F 2
CUDACL_INLINE static uint fast_kind(ulong format, bool sampler_ok) {
  uint k = format == FORMAT_RGBA_UNORM8 ? FAST_RGBA8 : format == FORMAT_RGBA_FLOAT ? FAST_RGBA32F : 0;
  return sampler_ok ? k : 0;
}

// A fast-path image's texel at (x, y, z) as floats, k its kind (FAST_RGBA8 or FAST_RGBA32F).
CUDACL_INLINE static float4 texel_fast(ulong s, ulong t, int g, uint k, int x, int y, int z) {
  if (k == FAST_RGBA8) return rgba8_f(fetch_fast(s, g, 4, x, y, z).x);
  return fetch_rgba32f(s, t, g, x, y, z);
}

// read_imagef's fast paths for an image of kind k: with a sampler known to be a fast_sampler and
// float coordinates; with a sampler and integer coordinates (OpenCL 1.2 allows them with
// unnormalized nearest samplers addressing CLAMP_TO_EDGE, CLAMP or NONE; like sample_int_coords,
// any other sampler is taken as reading the border outside the image): each coordinate kept
// within [0, n - 1] for CLAMP_TO_EDGE, else within [-1, n], where suld's .zero reads the border's
// zeros (and x * esz cannot wrap around into the image); without a sampler.
CUDACL_INLINE static float4 read_f_known(desc_t d, int g, uint smp, float4 c, uint k) {
  struct fast_desc f = fast_desc_of(d, g);
  int x = nearest_fast(c.x, f.w, smp);
  int y = g != G1D ? nearest_fast(c.y, f.h, smp) : 0;
  int z = g == G3D ? nearest_fast(c.z, f.dep, smp) : 0;
  return texel_fast(f.surface, f.texture, g, k, x, y, z);
}
CUDACL_INLINE static int int_index_fast(int x, int n, uint smp) {
  bool edge = (smp & SMP_ADDRESS_MASK) == SMP_ADDRESS_CLAMP_TO_EDGE;
  return iclamp(x, edge ? 0 : -1, edge ? n - 1 : n);
}
CUDACL_INLINE static float4 read_f_known_int(desc_t d, int g, uint smp, int4 c, uint k) {
  struct fast_desc f = fast_desc_of(d, g);
  int x = int_index_fast(c.x, f.w, smp);
  int y = g != G1D ? int_index_fast(c.y, f.h, smp) : 0;
  int z = g == G3D ? int_index_fast(c.z, f.dep, smp) : 0;
  return texel_fast(f.surface, f.texture, g, k, x, y, z);
}
CUDACL_INLINE static float4 read_f_known_unsampled(desc_t d, int g, int4 c, uint k) {
  int y = g != G1D ? c.y : 0, z = g == G3D ? c.z : 0;
  return texel_fast(d->surface, texture_of(d, g), g, k, c.x, y, z);
}

// The built-ins' fast paths take the descriptor's fields before the test of the kind (the
// known-kind functions' loads of them fold into these), so that the handles' loads do not wait
// for the branch.

// read_imagef with a sampler and float coordinates.
CUDACL_INLINE static float4 read_f_sampled(desc_t d, int g, uint smp, float4 c) {
  if (has_fast_path(g)) {
    uint k = fast_kind(fast_desc_of(d, g).format, fast_sampler(smp));
    if (k != 0) return read_f_known(d, g, smp, c, k);
  }
  return sample_f_general(d, g, smp, c);
}

// read_imagef with a sampler and integer coordinates.
CUDACL_INLINE static float4 read_f_sampled_int(desc_t d, int g, uint smp, int4 c) {
  if (has_fast_path(g)) {
    uint k = fast_kind(fast_desc_of(d, g).format, true);
    if (k != 0) return read_f_known_int(d, g, smp, c, k);
  }
  return words_f(d, sample_int_coords(d, g, smp, c));
}

// read_imagef without a sampler.
CUDACL_INLINE static float4 read_f_unsampled(desc_t d, int g, int4 c) {
  if (has_fast_path(g)) {
    uint k = fast_kind(format_of(d), true);
    if (k != 0) return read_f_known_unsampled(d, g, c, k);
  }
  return load_f_general(d, g, c);
}

// write_imagef. The empty volatile asm (it emits nothing) keeps the load of the surface handle
// ahead of the format test: left to itself LLVM loads the format, branches, then loads the
// handle, two round trips to memory in a row before the store.
CUDACL_INLINE static void write_f_any(desc_t d, int g, int4 c, float4 v) {
  if (has_fast_path(g)) {
    ulong s = d->surface, f = format_of(d);
    __asm__ volatile("" ::"l"(s), "l"(f));
    int y = g != G1D ? c.y : 0, z = g == G3D ? c.z : 0;
    if (__builtin_expect(f == FORMAT_RGBA_UNORM8, 1)) {
      store_fast(s, g, 4, c.x, y, z, (uint4)(f_rgba8(v), 0, 0, 0));
      return;
    }
    if (f == FORMAT_RGBA_FLOAT) {
      store_fast(s, g, 16, c.x, y, z, as_uint4(v));
      return;
    }
  }
  write_f_general(d, g, c, v);
}

// Format-known variants (read_imagef__cudacl_rgba8 ...), not OpenCL built-ins: the link step
// (bridge/images.cpp, specializeKernels) gives a kernel that reads images in a loop two copies
// of its body that run when every image it reads or writes is RGBA UNORM_INT8 (or every one RGBA
// FLOAT) and every sampler argument is a fast_sampler, and calls these there instead of the
// built-ins. No test is left in them: the loop of reads is straight-line code, small enough to
// unroll, with its loads in flight together. The sampled float-coordinate ones are only called
// with a sampler known to be a fast_sampler (checked at the kernel's entry, or a constant).
CUDACL_INLINE static void write_f_known(desc_t d, int g, int4 c, float4 v, uint k) {
  ulong s = d->surface;
  int y = g != G1D ? c.y : 0, z = g == G3D ? c.z : 0;
  if (k == FAST_RGBA8) store_fast(s, g, 4, c.x, y, z, (uint4)(f_rgba8(v), 0, 0, 0));
  else store_fast(s, g, 16, c.x, y, z, as_uint4(v));
}

#define KNOWN_VARIANTS(IMG, G, N, ITYPE, FTYPE, SUFFIX, K)                                          \
  OVL float4 read_imagef##SUFFIX(read_only IMG im, sampler_t s, FTYPE c) {                         \
    return read_f_known(__cudacl_desc(im), G, __cudacl_sampler(s), F4_##N(c), K);                  \
  }                                                                                                \
  OVL float4 read_imagef##SUFFIX(read_only IMG im, sampler_t s, ITYPE c) {                         \
    return read_f_known_int(__cudacl_desc(im), G, __cudacl_sampler(s), I4_##N(c), K);              \
  }                                                                                                \
  OVL float4 read_imagef##SUFFIX(read_only IMG im, ITYPE c) {                                      \
    return read_f_known_unsampled(__cudacl_desc(im), G, I4_##N(c), K);                             \
  }                                                                                                \
  OVL void write_imagef##SUFFIX(write_only IMG im, ITYPE c, float4 v) {                            \
    write_f_known(__cudacl_desc(im), G, I4_##N(c), v, K);                                          \
  }

// ---------------------------------------------------------------------------------------------
// The built-ins (OpenCL 1.2 6.12.14). Coordinates are widened to 4 components: I4/F4 take the
// coordinate type of each image type to int4/float4.
// ---------------------------------------------------------------------------------------------

#define I4_1(c) ((int4)((c), 0, 0, 0))
#define I4_2(c) ((int4)((c), 0, 0))
#define I4_4(c) (c)
#define F4_1(c) ((float4)((c), 0.0f, 0.0f, 0.0f))
#define F4_2(c) ((float4)((c), 0.0f, 0.0f))
#define F4_4(c) (c)

// Reads with a sampler (int and float coordinates) and without.
#define READS(IMG, G, N, ITYPE, FTYPE)                                                             \
  OVL float4 read_imagef(read_only IMG im, sampler_t s, ITYPE c) {                                 \
    return read_f_sampled_int(__cudacl_desc(im), G, __cudacl_sampler(s), I4_##N(c));               \
  }                                                                                                \
  OVL float4 read_imagef(read_only IMG im, sampler_t s, FTYPE c) {                                 \
    return read_f_sampled(__cudacl_desc(im), G, __cudacl_sampler(s), F4_##N(c));                   \
  }                                                                                                \
  OVL int4 read_imagei(read_only IMG im, sampler_t s, ITYPE c) {                                   \
    desc_t d = __cudacl_desc(im);                                                                  \
    return as_int4(words_u(d, sample_int_coords(d, G, __cudacl_sampler(s), I4_##N(c))));           \
  }                                                                                                \
  OVL int4 read_imagei(read_only IMG im, sampler_t s, FTYPE c) {                                   \
    return as_int4(sample_u(__cudacl_desc(im), G, __cudacl_sampler(s), F4_##N(c)));               \
  }                                                                                                \
  OVL uint4 read_imageui(read_only IMG im, sampler_t s, ITYPE c) {                                 \
    desc_t d = __cudacl_desc(im);                                                                  \
    return words_u(d, sample_int_coords(d, G, __cudacl_sampler(s), I4_##N(c)));                    \
  }                                                                                                \
  OVL uint4 read_imageui(read_only IMG im, sampler_t s, FTYPE c) {                                 \
    return sample_u(__cudacl_desc(im), G, __cudacl_sampler(s), F4_##N(c));                         \
  }                                                                                                \
  SAMPLERLESS_READS(IMG, G, N, ITYPE)

#define SAMPLERLESS_READS(IMG, G, N, ITYPE)                                                        \
  OVL float4 read_imagef(read_only IMG im, ITYPE c) {                                              \
    return read_f_unsampled(__cudacl_desc(im), G, I4_##N(c));                                      \
  }                                                                                                \
  OVL int4 read_imagei(read_only IMG im, ITYPE c) {                                                \
    desc_t d = __cudacl_desc(im);                                                                  \
    return as_int4(words_u(d, load_at(d, G, I4_##N(c))));                                          \
  }                                                                                                \
  OVL uint4 read_imageui(read_only IMG im, ITYPE c) {                                              \
    desc_t d = __cudacl_desc(im);                                                                  \
    return words_u(d, load_at(d, G, I4_##N(c)));                                                   \
  }

#define WRITES(IMG, G, N, ITYPE)                                                                   \
  OVL void write_imagef(write_only IMG im, ITYPE c, float4 v) {                                    \
    write_f_any(__cudacl_desc(im), G, I4_##N(c), v);                                               \
  }                                                                                                \
  OVL void write_imagei(write_only IMG im, ITYPE c, int4 v) {                                      \
    write_i(__cudacl_desc(im), G, I4_##N(c), v);                                                   \
  }                                                                                                \
  OVL void write_imageui(write_only IMG im, ITYPE c, uint4 v) {                                    \
    write_u(__cudacl_desc(im), G, I4_##N(c), v);                                                   \
  }

READS(image1d_t, G1D, 1, int, float)
READS(image1d_array_t, G1DA, 2, int2, float2)
READS(image2d_t, G2D, 2, int2, float2)
READS(image2d_array_t, G2DA, 4, int4, float4)
READS(image3d_t, G3D, 4, int4, float4)
SAMPLERLESS_READS(image1d_buffer_t, GBUF, 1, int)

WRITES(image1d_t, G1D, 1, int)
WRITES(image1d_buffer_t, GBUF, 1, int)
WRITES(image1d_array_t, G1DA, 2, int2)
WRITES(image2d_t, G2D, 2, int2)
WRITES(image2d_array_t, G2DA, 4, int4)
WRITES(image3d_t, G3D, 4, int4)

KNOWN_VARIANTS(image1d_t, G1D, 1, int, float, __cudacl_rgba8, FAST_RGBA8)
KNOWN_VARIANTS(image2d_t, G2D, 2, int2, float2, __cudacl_rgba8, FAST_RGBA8)
KNOWN_VARIANTS(image3d_t, G3D, 4, int4, float4, __cudacl_rgba8, FAST_RGBA8)
KNOWN_VARIANTS(image1d_t, G1D, 1, int, float, __cudacl_rgba32f, FAST_RGBA32F)
KNOWN_VARIANTS(image2d_t, G2D, 2, int2, float2, __cudacl_rgba32f, FAST_RGBA32F)
KNOWN_VARIANTS(image3d_t, G3D, 4, int4, float4, __cudacl_rgba32f, FAST_RGBA32F)

// Queries, for read_only and write_only images.
#define QUERIES_ACCESS(ACC, IMG)                                                                   \
  OVL int get_image_width(ACC IMG im) { return (int)__cudacl_desc(im)->width; }                    \
  OVL int get_image_channel_data_type(ACC IMG im) { return (int)__cudacl_desc(im)->type; }         \
  OVL int get_image_channel_order(ACC IMG im) { return (int)__cudacl_desc(im)->order; }
#define QUERIES(IMG) QUERIES_ACCESS(read_only, IMG) QUERIES_ACCESS(write_only, IMG)
QUERIES(image1d_t)
QUERIES(image1d_buffer_t)
QUERIES(image1d_array_t)
QUERIES(image2d_t)
QUERIES(image2d_array_t)
QUERIES(image3d_t)

#define QUERIES_2D(ACC, IMG)                                                                       \
  OVL int get_image_height(ACC IMG im) { return (int)__cudacl_desc(im)->height; }                  \
  OVL int2 get_image_dim(ACC IMG im) {                                                             \
    desc_t d = __cudacl_desc(im);                                                                  \
    return (int2)((int)d->width, (int)d->height);                                                  \
  }
QUERIES_2D(read_only, image2d_t)
QUERIES_2D(write_only, image2d_t)
QUERIES_2D(read_only, image2d_array_t)
QUERIES_2D(write_only, image2d_array_t)

#define QUERIES_3D(ACC)                                                                            \
  OVL int get_image_height(ACC image3d_t im) { return (int)__cudacl_desc(im)->height; }            \
  OVL int get_image_depth(ACC image3d_t im) { return (int)__cudacl_desc(im)->depth; }              \
  OVL int4 get_image_dim(ACC image3d_t im) {                                                       \
    desc_t d = __cudacl_desc(im);                                                                  \
    return (int4)((int)d->width, (int)d->height, (int)d->depth, 0);                                \
  }
QUERIES_3D(read_only)
QUERIES_3D(write_only)

#define QUERIES_ARRAY(ACC, IMG)                                                                    \
  OVL size_t get_image_array_size(ACC IMG im) { return __cudacl_desc(im)->array_size; }
QUERIES_ARRAY(read_only, image1d_array_t)
QUERIES_ARRAY(write_only, image1d_array_t)
QUERIES_ARRAY(read_only, image2d_array_t)
QUERIES_ARRAY(write_only, image2d_array_t)
