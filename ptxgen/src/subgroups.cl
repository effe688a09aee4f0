// The sub-group built-ins of cl_khr_subgroups (OpenCL C 3.0 `__opencl_c_subgroups`) and of
// cl_khr_subgroup_extended_types, _non_uniform_vote, _ballot, _non_uniform_arithmetic,
// _shuffle, _shuffle_relative, _clustered_reduce and _rotate, for cudacl: compiled once per process by
// ptxgen's own clang and linked into the programs that call them (src/subgroups.rs,
// bridge/subgroups.cpp), as images.cl is. libclc 19 has none of them.
//
// A sub-group is a warp: sub-group i of a work-group holds the work-items of linear local id
// 32i .. 32i + 31 (the linear id is x + y * X + z * X * Y, as CUDA numbers a block's threads into
// warps), so a work-group of N work-items has ceil(N / 32) sub-groups and the last one has
// N - 32 * (ceil(N / 32) - 1) work-items when 32 does not divide N. The sub-group local id is
// the PTX %laneid.
//
// Two kinds of functions (OpenCL C extension spec, "Sub-group functions"):
//  - those of cl_khr_subgroups (and their extended types) must be reached by every work-item of
//    the sub-group (uniform control flow): they synchronise the sub-group's work-items, the
//    member mask of their shfl/vote.sync being the whole sub-group (the low
//    get_sub_group_size() bits: a partial sub-group names only the lanes that exist);
//  - the others (non_uniform_*, ballot, shuffles, rotations, clustered reductions) act on the work-items
//    that are active where the call is (SPIR-V's OpGroupNonUniform* semantics): the member mask
//    is %activemask, and a lane read that is not active gives an undefined value, as the
//    extension specs say.
//
// The warp instructions are reached through their LLVM intrinsics, declared with asm labels
// (clang's __nvvm_* builtins want a PTX 6.0 target feature the front end does not set); they need
// PTX ISA 6.0 (6.2 for activemask), which every driver cudacl loads on (CUDA 10.2: PTX 6.5) has.
// Every function is always_inline and convergent (OpenCL C's default), so the shuffles stay at
// their places in the control flow.

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define INL __attribute__((always_inline))
#define OVL __attribute__((overloadable, always_inline))

int __sg_shfl_idx(uint mask, int x, int lane, int c) __asm("llvm.nvvm.shfl.sync.idx.i32");
int __sg_shfl_up(uint mask, int x, int delta, int c) __asm("llvm.nvvm.shfl.sync.up.i32");
int __sg_shfl_down(uint mask, int x, int delta, int c) __asm("llvm.nvvm.shfl.sync.down.i32");
int __sg_shfl_bfly(uint mask, int x, int lanemask, int c) __asm("llvm.nvvm.shfl.sync.bfly.i32");
uint __sg_vote_ballot(uint mask, bool p) __asm("llvm.nvvm.vote.ballot.sync");
bool __sg_vote_all(uint mask, bool p) __asm("llvm.nvvm.vote.all.sync");
bool __sg_vote_any(uint mask, bool p) __asm("llvm.nvvm.vote.any.sync");
uint __sg_activemask(void) __asm("llvm.nvvm.activemask");
void __sg_bar_warp_sync(uint mask) __asm("llvm.nvvm.bar.warp.sync");
void __sg_membar_cta(void) __asm("llvm.nvvm.membar.cta");
void __sg_membar_gl(void) __asm("llvm.nvvm.membar.gl");
uint __sg_laneid(void) __asm("llvm.nvvm.read.ptx.sreg.laneid");
uint __sg_tid_x(void) __asm("llvm.nvvm.read.ptx.sreg.tid.x");
uint __sg_tid_y(void) __asm("llvm.nvvm.read.ptx.sreg.tid.y");
uint __sg_tid_z(void) __asm("llvm.nvvm.read.ptx.sreg.tid.z");
uint __sg_ntid_x(void) __asm("llvm.nvvm.read.ptx.sreg.ntid.x");
uint __sg_ntid_y(void) __asm("llvm.nvvm.read.ptx.sreg.ntid.y");
uint __sg_ntid_z(void) __asm("llvm.nvvm.read.ptx.sreg.ntid.z");

// ---- Work-item functions ------------------------------------------------------------------

INL static uint wg_items(void) { return __sg_ntid_x() * __sg_ntid_y() * __sg_ntid_z(); }
INL static uint linear_local_id(void) {
  return __sg_tid_x() + __sg_ntid_x() * (__sg_tid_y() + __sg_ntid_y() * __sg_tid_z());
}
INL static uint lane(void) { return __sg_laneid(); }
INL static uint sg_size(void) {
  uint n = wg_items() - (linear_local_id() & ~31u);
  return n < 32u ? n : 32u;
}
// The lanes of the calling work-item's sub-group: the low sg_size() bits.
INL static uint sg_mask(void) {
  uint n = sg_size();
  return n >= 32u ? 0xffffffffu : (1u << n) - 1u;
}

OVL uint get_sub_group_size(void) { return sg_size(); }
// Work-groups are uniform (a local size divides the global size), so the largest sub-group of
// the dispatch is min(32, work-group size) and every work-group has as many sub-groups.
OVL uint get_max_sub_group_size(void) {
  uint n = wg_items();
  return n < 32u ? n : 32u;
}
OVL uint get_num_sub_groups(void) { return (wg_items() + 31u) >> 5; }
OVL uint get_enqueued_num_sub_groups(void) { return (wg_items() + 31u) >> 5; }
OVL uint get_sub_group_id(void) { return linear_local_id() >> 5; }
OVL uint get_sub_group_local_id(void) { return lane(); }

// bar.warp.sync also orders the memory accesses of the lanes it synchronises (PTX ISA,
// "bar.warp.sync"), so it is the barrier and the fence of either address space at sub-group
// scope (the one-argument form's); a wider scope adds membar.cta (work-group) or membar.gl
// (device, all devices) before it, so that what the lanes wrote before the barrier is ordered
// for the rest of that scope too.
OVL void sub_group_barrier(cl_mem_fence_flags flags) { __sg_bar_warp_sync(sg_mask()); }
OVL void sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  if (scope == memory_scope_work_group)
    __sg_membar_cta();
  else if (scope != memory_scope_sub_group && scope != memory_scope_work_item)
    __sg_membar_gl();
  __sg_bar_warp_sync(sg_mask());
}

OVL int sub_group_all(int p) { return __sg_vote_all(sg_mask(), p != 0) ? 1 : 0; }
OVL int sub_group_any(int p) { return __sg_vote_any(sg_mask(), p != 0) ? 1 : 0; }

// ---- Shuffles of any scalar type ----------------------------------------------------------
// sh_idx/up/down/xor(mask, x, n): shfl.sync of a 32-bit register; 64-bit types as two halves,
// 8- and 16-bit ones widened.

#define SH_KIND(T, TO, FROM)                                                                    \
  OVL static T sh_idx(uint m, T x, uint l) { return FROM(__sg_shfl_idx(m, TO(x), (int)l, 31)); } \
  OVL static T sh_up(uint m, T x, uint d) { return FROM(__sg_shfl_up(m, TO(x), (int)d, 0)); }    \
  OVL static T sh_down(uint m, T x, uint d) { return FROM(__sg_shfl_down(m, TO(x), (int)d, 31)); } \
  OVL static T sh_xor(uint m, T x, uint d) { return FROM(__sg_shfl_bfly(m, TO(x), (int)d, 31)); }

#define TO_INT(x) ((int)(x))
#define TO_BITS(x) as_int(x)
#define TO_HBITS(x) ((int)as_ushort(x))
#define FROM_CHAR(v) ((char)(v))
#define FROM_UCHAR(v) ((uchar)(v))
#define FROM_SHORT(v) ((short)(v))
#define FROM_USHORT(v) ((ushort)(v))
#define FROM_INT(v) (v)
#define FROM_UINT(v) as_uint(v)
#define FROM_FLOAT(v) as_float(v)
#define FROM_HALF(v) as_half((ushort)(v))
SH_KIND(char, TO_INT, FROM_CHAR)
SH_KIND(uchar, TO_INT, FROM_UCHAR)
SH_KIND(short, TO_INT, FROM_SHORT)
SH_KIND(ushort, TO_INT, FROM_USHORT)
SH_KIND(int, TO_INT, FROM_INT)
SH_KIND(uint, TO_BITS, FROM_UINT)
SH_KIND(float, TO_BITS, FROM_FLOAT)
SH_KIND(half, TO_HBITS, FROM_HALF)

#define SH_KIND64(T)                                                                              \
  OVL static T sh_idx(uint m, T x, uint l) {                                                      \
    int2 v = as_int2(x);                                                                          \
    v.x = __sg_shfl_idx(m, v.x, (int)l, 31);                                                      \
    v.y = __sg_shfl_idx(m, v.y, (int)l, 31);                                                      \
    return as_##T(v);                                                                             \
  }                                                                                               \
  OVL static T sh_up(uint m, T x, uint d) {                                                       \
    int2 v = as_int2(x);                                                                          \
    v.x = __sg_shfl_up(m, v.x, (int)d, 0);                                                        \
    v.y = __sg_shfl_up(m, v.y, (int)d, 0);                                                        \
    return as_##T(v);                                                                             \
  }                                                                                               \
  OVL static T sh_down(uint m, T x, uint d) {                                                     \
    int2 v = as_int2(x);                                                                          \
    v.x = __sg_shfl_down(m, v.x, (int)d, 31);                                                     \
    v.y = __sg_shfl_down(m, v.y, (int)d, 31);                                                     \
    return as_##T(v);                                                                             \
  }                                                                                               \
  OVL static T sh_xor(uint m, T x, uint d) {                                                      \
    int2 v = as_int2(x);                                                                          \
    v.x = __sg_shfl_bfly(m, v.x, (int)d, 31);                                                     \
    v.y = __sg_shfl_bfly(m, v.y, (int)d, 31);                                                     \
    return as_##T(v);                                                                             \
  }
SH_KIND64(long)
SH_KIND64(ulong)
SH_KIND64(double)

// Vectors (broadcasts only): lane by lane.
#define VMAP2(F) r.s0 = F(x.s0); r.s1 = F(x.s1);
#define VMAP3(F) VMAP2(F) r.s2 = F(x.s2);
#define VMAP4(F) VMAP3(F) r.s3 = F(x.s3);
#define VMAP8(F) VMAP4(F) r.s4 = F(x.s4); r.s5 = F(x.s5); r.s6 = F(x.s6); r.s7 = F(x.s7);
#define VMAP16(F) VMAP8(F) r.s8 = F(x.s8); r.s9 = F(x.s9); r.sa = F(x.sa); r.sb = F(x.sb); \
  r.sc = F(x.sc); r.sd = F(x.sd); r.se = F(x.se); r.sf = F(x.sf);
#define SH_IDX_L(e) sh_idx(m, e, l)
#define SH_VEC(T, N) \
  OVL static T##N sh_idx(uint m, T##N x, uint l) { T##N r; VMAP##N(SH_IDX_L) return r; }
#define SH_VECS(T) SH_VEC(T, 2) SH_VEC(T, 3) SH_VEC(T, 4) SH_VEC(T, 8) SH_VEC(T, 16)
SH_VECS(char) SH_VECS(uchar) SH_VECS(short) SH_VECS(ushort) SH_VECS(int) SH_VECS(uint)
SH_VECS(long) SH_VECS(ulong) SH_VECS(float) SH_VECS(double) SH_VECS(half)

// Applies M(T) to every scalar type / every vector type of cl_khr_subgroup_extended_types.
#define ALL_SCALARS(M) M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong) \
  M(float) M(double) M(half)
#define INT_SCALARS(M) M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong)
#define VEC_OF(M, T) M(T##2) M(T##3) M(T##4) M(T##8) M(T##16)
#define ALL_VECTORS(M) VEC_OF(M, char) VEC_OF(M, uchar) VEC_OF(M, short) VEC_OF(M, ushort) \
  VEC_OF(M, int) VEC_OF(M, uint) VEC_OF(M, long) VEC_OF(M, ulong) VEC_OF(M, float)          \
  VEC_OF(M, double) VEC_OF(M, half)

// ---- Broadcasts ---------------------------------------------------------------------------

#define BROADCAST(T) \
  OVL T sub_group_broadcast(T x, uint id) { return sh_idx(sg_mask(), x, id); }
ALL_SCALARS(BROADCAST)
ALL_VECTORS(BROADCAST)

#define NU_BROADCAST(T) \
  OVL T sub_group_non_uniform_broadcast(T x, uint id) { return sh_idx(__sg_activemask(), x, id); }
ALL_SCALARS(NU_BROADCAST)
ALL_VECTORS(NU_BROADCAST)

#define BROADCAST_FIRST(T)                                 \
  OVL T sub_group_broadcast_first(T x) {                   \
    uint m = __sg_activemask();                            \
    return sh_idx(m, x, (uint)__builtin_ctz(m));           \
  }
ALL_SCALARS(BROADCAST_FIRST)

// ---- Reductions and scans -----------------------------------------------------------------
// The operations and their identities (the exclusive scan's value at the first work-item).

#define OP_add(a, b) ((a) + (b))
#define OP_mul(a, b) ((a) * (b))
#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_logical_and(a, b) ((a) && (b))
#define OP_logical_or(a, b) ((a) || (b))
#define OP_logical_xor(a, b) ((!(a)) != (!(b)))
OVL static INL char op_min(char a, char b) { return b < a ? b : a; }
OVL static INL uchar op_min(uchar a, uchar b) { return b < a ? b : a; }
OVL static INL short op_min(short a, short b) { return b < a ? b : a; }
OVL static INL ushort op_min(ushort a, ushort b) { return b < a ? b : a; }
OVL static INL int op_min(int a, int b) { return b < a ? b : a; }
OVL static INL uint op_min(uint a, uint b) { return b < a ? b : a; }
OVL static INL long op_min(long a, long b) { return b < a ? b : a; }
OVL static INL ulong op_min(ulong a, ulong b) { return b < a ? b : a; }
OVL static INL char op_max(char a, char b) { return b > a ? b : a; }
OVL static INL uchar op_max(uchar a, uchar b) { return b > a ? b : a; }
OVL static INL short op_max(short a, short b) { return b > a ? b : a; }
OVL static INL ushort op_max(ushort a, ushort b) { return b > a ? b : a; }
OVL static INL int op_max(int a, int b) { return b > a ? b : a; }
OVL static INL uint op_max(uint a, uint b) { return b > a ? b : a; }
OVL static INL long op_max(long a, long b) { return b > a ? b : a; }
OVL static INL ulong op_max(ulong a, ulong b) { return b > a ? b : a; }
// Floating point: fmin/fmax (a NaN operand gives the other one), as llvm.minnum/maxnum.
OVL static INL float op_min(float a, float b) { return __builtin_fminf(a, b); }
OVL static INL float op_max(float a, float b) { return __builtin_fmaxf(a, b); }
OVL static INL double op_min(double a, double b) { return __builtin_fmin(a, b); }
OVL static INL double op_max(double a, double b) { return __builtin_fmax(a, b); }
OVL static INL half op_min(half a, half b) { return (half)__builtin_fminf((float)a, (float)b); }
OVL static INL half op_max(half a, half b) { return (half)__builtin_fmaxf((float)a, (float)b); }
#define OP_min(a, b) op_min(a, b)
#define OP_max(a, b) op_max(a, b)

#define ID_add(T) ((T)0)
#define ID_mul(T) ((T)1)
#define ID_and(T) ((T)~(T)0)
#define ID_or(T) ((T)0)
#define ID_xor(T) ((T)0)
#define ID_logical_and(T) 1
#define ID_logical_or(T) 0
#define ID_logical_xor(T) 0
#define ID_min_char CHAR_MAX
#define ID_min_uchar UCHAR_MAX
#define ID_min_short SHRT_MAX
#define ID_min_ushort USHRT_MAX
#define ID_min_int INT_MAX
#define ID_min_uint UINT_MAX
#define ID_min_long LONG_MAX
#define ID_min_ulong ULONG_MAX
#define ID_min_float INFINITY
#define ID_min_double ((double)INFINITY)
#define ID_min_half ((half)INFINITY)
#define ID_max_char CHAR_MIN
#define ID_max_uchar 0
#define ID_max_short SHRT_MIN
#define ID_max_ushort 0
#define ID_max_int INT_MIN
#define ID_max_uint 0
#define ID_max_long LONG_MIN
#define ID_max_ulong 0
#define ID_max_float (-INFINITY)
#define ID_max_double (-(double)INFINITY)
#define ID_max_half (-(half)INFINITY)
#define ID_min(T) ((T)ID_min_##T)
#define ID_max(T) ((T)ID_max_##T)

// Uniform (cl_khr_subgroups): the whole sub-group, lanes 0 .. n-1. An inclusive scan in
// log2(32) steps of shfl.up (the source lane is always below the caller, so inside the
// sub-group); the reduction is the last lane's scan, broadcast (a full sub-group: a butterfly,
// every lane combining the same values in the same order).
#define UNIFORM(T, OP)                                                                  \
  OVL static T scan_incl_##OP(uint m, T x) {                                            \
    uint l = lane();                                                                    \
    _Pragma("unroll") for (uint d = 1; d < 32u; d <<= 1) {                              \
      T y = sh_up(m, x, d);                                                             \
      if (l >= d) x = OP_##OP(y, x);                                                    \
    }                                                                                   \
    return x;                                                                           \
  }                                                                                     \
  OVL T sub_group_scan_inclusive_##OP(T x) { return scan_incl_##OP(sg_mask(), x); }     \
  OVL T sub_group_scan_exclusive_##OP(T x) {                                            \
    uint m = sg_mask();                                                                 \
    T y = sh_up(m, scan_incl_##OP(m, x), 1u);                                           \
    return lane() == 0 ? ID_##OP(T) : y;                                                \
  }                                                                                     \
  OVL T sub_group_reduce_##OP(T x) {                                                    \
    uint m = sg_mask();                                                                 \
    if (m == 0xffffffffu) {                                                             \
      _Pragma("unroll") for (uint d = 16; d > 0; d >>= 1) x = OP_##OP(x, sh_xor(m, x, d)); \
      return x;                                                                         \
    }                                                                                   \
    return sh_idx(m, scan_incl_##OP(m, x), 31u - __builtin_clz(m));                     \
  }
#define UNIFORM_ALL(T) UNIFORM(T, add) UNIFORM(T, min) UNIFORM(T, max)
ALL_SCALARS(UNIFORM_ALL)

// Non-uniform (cl_khr_subgroup_non_uniform_arithmetic): over the active lanes, whatever they
// are. Every active lane reads every active lane's value in lane order (one shfl.idx per active
// lane, all with the same mask) and keeps what its result needs.
#define NON_UNIFORM(T, OP, RT)                                                           \
  OVL static RT nu_##OP(T x, int kind) {                                                 \
    uint m = __sg_activemask(), l = lane(), r = m;                                       \
    RT acc = ID_##OP(RT);                                                                \
    while (r) {                                                                          \
      uint i = (uint)__builtin_ctz(r);                                                   \
      r &= r - 1u;                                                                       \
      T v = sh_idx(m, x, i);                                                             \
      if (kind == 0 || (kind == 1 && i <= l) || (kind == 2 && i < l)) acc = OP_##OP(acc, v); \
    }                                                                                    \
    return acc;                                                                          \
  }                                                                                      \
  OVL RT sub_group_non_uniform_reduce_##OP(T x) { return nu_##OP(x, 0); }                \
  OVL RT sub_group_non_uniform_scan_inclusive_##OP(T x) { return nu_##OP(x, 1); }        \
  OVL RT sub_group_non_uniform_scan_exclusive_##OP(T x) { return nu_##OP(x, 2); }
#define NU_ARITH(T) NON_UNIFORM(T, add, T) NON_UNIFORM(T, mul, T) NON_UNIFORM(T, min, T) \
  NON_UNIFORM(T, max, T)
#define NU_BITS(T) NON_UNIFORM(T, and, T) NON_UNIFORM(T, or, T) NON_UNIFORM(T, xor, T)
ALL_SCALARS(NU_ARITH)
INT_SCALARS(NU_BITS)
NON_UNIFORM(int, logical_and, int)
NON_UNIFORM(int, logical_or, int)
NON_UNIFORM(int, logical_xor, int)

// Clustered (cl_khr_subgroup_clustered_reduce): the active lanes of the caller's cluster of
// `c` lanes (a power of two up to 32). All lanes active: a butterfly inside the cluster;
// otherwise every active lane's value, one shfl.idx each, kept by the lanes of its cluster (every
// active lane runs the same shuffles: shfl.sync wants all the lanes of its mask at each one).
#define CLUSTERED(T, OP, RT)                                                             \
  OVL RT sub_group_clustered_reduce_##OP(T x, uint c) {                                  \
    uint m = __sg_activemask(), l = lane();                                              \
    if (m == 0xffffffffu) {                                                              \
      RT acc = x;                                                                        \
      for (uint d = c >> 1; d > 0; d >>= 1) acc = OP_##OP(acc, sh_xor(m, acc, d));       \
      return acc;                                                                        \
    }                                                                                    \
    uint r = m;                                                                          \
    RT acc = ID_##OP(RT);                                                                \
    while (r) {                                                                          \
      uint i = (uint)__builtin_ctz(r);                                                   \
      r &= r - 1u;                                                                       \
      T v = sh_idx(m, x, i);                                                             \
      if ((i & ~(c - 1u)) == (l & ~(c - 1u))) acc = OP_##OP(acc, v);                     \
    }                                                                                    \
    return acc;                                                                          \
  }
#define CL_ARITH(T) CLUSTERED(T, add, T) CLUSTERED(T, mul, T) CLUSTERED(T, min, T) \
  CLUSTERED(T, max, T)
#define CL_BITS(T) CLUSTERED(T, and, T) CLUSTERED(T, or, T) CLUSTERED(T, xor, T)
ALL_SCALARS(CL_ARITH)
INT_SCALARS(CL_BITS)
CLUSTERED(int, logical_and, int)
CLUSTERED(int, logical_or, int)
CLUSTERED(int, logical_xor, int)

// ---- Votes (cl_khr_subgroup_non_uniform_vote) -----------------------------------------------

OVL int sub_group_elect(void) {
  return lane() == (uint)__builtin_ctz(__sg_activemask()) ? 1 : 0;
}
OVL int sub_group_non_uniform_all(int p) { return __sg_vote_all(__sg_activemask(), p != 0) ? 1 : 0; }
OVL int sub_group_non_uniform_any(int p) { return __sg_vote_any(__sg_activemask(), p != 0) ? 1 : 0; }
#define ALL_EQUAL(T)                                                  \
  OVL int sub_group_non_uniform_all_equal(T x) {                      \
    uint m = __sg_activemask();                                       \
    T f = sh_idx(m, x, (uint)__builtin_ctz(m));                       \
    return __sg_vote_all(m, x == f) ? 1 : 0;                          \
  }
ALL_SCALARS(ALL_EQUAL)

// ---- Ballots (cl_khr_subgroup_ballot): bit i of .x is sub-group local id i; .y .z .w are 0 --

OVL uint4 sub_group_ballot(int p) { return (uint4)(__sg_vote_ballot(__sg_activemask(), p != 0), 0u, 0u, 0u); }
OVL int sub_group_inverse_ballot(uint4 v) { return (int)((v.x >> lane()) & 1u); }
OVL int sub_group_ballot_bit_extract(uint4 v, uint i) {
  uint w = i < 32u ? v.x : i < 64u ? v.y : i < 96u ? v.z : v.w;
  return (int)((w >> (i & 31u)) & 1u);
}
// The ballot counts and searches and the masks consider the first get_max_sub_group_size()
// bits (the extension's wording; the CTS counts them so too, in a partial sub-group as well).
INL static uint max_mask(void) {
  uint n = get_max_sub_group_size();
  return n >= 32u ? 0xffffffffu : (1u << n) - 1u;
}
INL static uint le_mask(uint l) { return l >= 31u ? 0xffffffffu : (2u << l) - 1u; }
OVL uint sub_group_ballot_bit_count(uint4 v) { return (uint)__builtin_popcount(v.x & max_mask()); }
OVL uint sub_group_ballot_inclusive_scan(uint4 v) { return (uint)__builtin_popcount(v.x & le_mask(lane())); }
OVL uint sub_group_ballot_exclusive_scan(uint4 v) {
  return (uint)__builtin_popcount(v.x & ((1u << lane()) - 1u));
}
OVL uint sub_group_ballot_find_lsb(uint4 v) { return (uint)__builtin_ctz(v.x & max_mask()); }
OVL uint sub_group_ballot_find_msb(uint4 v) { return 31u - (uint)__builtin_clz(v.x & max_mask()); }
OVL uint4 get_sub_group_eq_mask(void) { return (uint4)(1u << lane(), 0u, 0u, 0u); }
OVL uint4 get_sub_group_ge_mask(void) { return (uint4)(max_mask() & ~((1u << lane()) - 1u), 0u, 0u, 0u); }
OVL uint4 get_sub_group_gt_mask(void) { return (uint4)(max_mask() & ~le_mask(lane()), 0u, 0u, 0u); }
OVL uint4 get_sub_group_le_mask(void) { return (uint4)(le_mask(lane()), 0u, 0u, 0u); }
OVL uint4 get_sub_group_lt_mask(void) { return (uint4)((1u << lane()) - 1u, 0u, 0u, 0u); }

// ---- Shuffles (cl_khr_subgroup_shuffle, cl_khr_subgroup_shuffle_relative) -------------------

#define SHUFFLES(T)                                                                          \
  OVL T sub_group_shuffle(T x, uint i) { return sh_idx(__sg_activemask(), x, i); }           \
  OVL T sub_group_shuffle_xor(T x, uint m) { return sh_idx(__sg_activemask(), x, lane() ^ m); } \
  OVL T sub_group_shuffle_up(T x, uint d) { return sh_up(__sg_activemask(), x, d); }         \
  OVL T sub_group_shuffle_down(T x, uint d) { return sh_down(__sg_activemask(), x, d); }
ALL_SCALARS(SHUFFLES)

// ---- Rotation (cl_khr_subgroup_rotate): the value of lane (id + delta) mod the maximum
// sub-group size, or within the caller's cluster; need not be reached by the whole sub-group
// (a source lane that is not active gives an undefined value, as the extension says).
#define ROTATE(T)                                                                            \
  OVL T sub_group_rotate(T x, int delta) {                                                   \
    int mx = (int)get_max_sub_group_size();                                                  \
    int r = ((int)lane() + delta % mx) % mx;                                                 \
    return sh_idx(__sg_activemask(), x, (uint)(r < 0 ? r + mx : r));                         \
  }                                                                                          \
  OVL T sub_group_clustered_rotate(T x, int delta, uint c) {                                 \
    uint l = lane();                                                                         \
    return sh_idx(__sg_activemask(), x, (l & ~(c - 1u)) + ((l + (uint)delta) & (c - 1u)));    \
  }
ALL_SCALARS(ROTATE)
