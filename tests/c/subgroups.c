/* Sub-groups (cl_khr_subgroups and the cl_khr_subgroup_* extensions) on a GPU, self-checking:
 * every work-item of many work-group shapes (1-D 32, 64, 48, 100, 7; 2-D and 3-D shapes whose
 * linear size is or is not a multiple of 32) records the sub-group built-ins' results, and each
 * is compared with a reference computed here from the spec's definition: sub-group i of a
 * work-group is the work-items of linear local id 32i .. 32i + 31 (the last one partial), the
 * linear id being x + y * X + z * X * Y. Uniform functions (reductions, scans, broadcasts, votes,
 * barrier), the non-uniform ones inside a branch only some work-items take (their reference is
 * over the work-items that took it), ballots, shuffles, rotations, clustered reductions and
 * extended types.
 * Prints PASS or FAIL last.
 *
 *   ./subgroups        the queries and the builds (what the fake CUDA driver can check)
 *   ./subgroups gpu    also runs the kernels and checks every result (needs a real device)
 *
 * Also cl_intel_required_subgroup_size: its queries, and builds with the one size there is.
 *
 * Runs unchanged on another platform named by CL_PLATFORM_NAME: the kernel needs every
 * extension it uses, and a platform whose sub-groups are not 32 wide fails the checks. */
#include "common.h"
#include <CL/cl_ext.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static int run_kernels;

#define NI 52 /* int results per work-item */
#define NL 6  /* long results */
#define NF 4  /* float results */
#define ND 3  /* double results */
#define UNSET (-7)

static const char *SRC =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define NI 52\n#define NL 6\n#define NF 4\n#define ND 3\n"
    "kernel void sg(global const int *in, global int *o, global long *lo, global float *fo, global double *dd,\n"
    "               local int *loc) {\n"
    "  uint L = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
    "  uint lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));\n"
    "  uint grp = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2));\n"
    "  size_t i = (size_t)grp * L + lid;\n"
    "  int x = in[i];\n"
    "  uint n = get_sub_group_size(), l = get_sub_group_local_id();\n"
    "  global int *r = o + i * NI;\n"
    "  for (int k = 0; k < NI; k++) r[k] = -7;\n"
    "  r[0] = n; r[1] = get_max_sub_group_size(); r[2] = get_num_sub_groups(); r[3] = get_sub_group_id();\n"
    "  r[4] = l; r[5] = get_enqueued_num_sub_groups();\n"
    "  r[6] = sub_group_all(x % 7 != 0); r[7] = sub_group_any(x % 61 == 0);\n"
    "  r[8] = sub_group_broadcast(x, n - 1);\n"
    "  r[9] = sub_group_reduce_add(x); r[10] = sub_group_reduce_min(x); r[11] = sub_group_reduce_max(x);\n"
    "  r[12] = sub_group_scan_inclusive_add(x); r[13] = sub_group_scan_exclusive_add(x);\n"
    "  r[14] = sub_group_scan_inclusive_min(x); r[15] = sub_group_scan_exclusive_max(x);\n"
    "  r[16] = (int)sub_group_reduce_max((uint)x); r[17] = (int)sub_group_scan_exclusive_min((uint)x);\n"
    "  r[18] = sub_group_shuffle(x, (l + 3) % n);\n"
    "  r[19] = sub_group_shuffle_xor(x, 1u);\n"
    "  r[20] = sub_group_shuffle_up(x, 2u);\n"
    "  r[21] = sub_group_shuffle_down(x, 3u);\n"
    "  uint4 b = sub_group_ballot(x & 1);\n"
    "  r[22] = b.x; r[23] = b.y | b.z | b.w;\n"
    "  r[24] = sub_group_ballot_bit_count(b); r[25] = sub_group_ballot_inclusive_scan(b);\n"
    "  r[26] = sub_group_ballot_exclusive_scan(b);\n"
    "  r[27] = b.x ? (int)sub_group_ballot_find_lsb(b) : -1; r[28] = b.x ? (int)sub_group_ballot_find_msb(b) : -1;\n"
    "  r[29] = get_sub_group_lt_mask().x; r[30] = get_sub_group_ge_mask().x; r[31] = get_sub_group_eq_mask().x;\n"
    "  r[32] = sub_group_inverse_ballot(b); r[33] = sub_group_ballot_bit_extract(b, (l + 1) % n);\n"
    "  r[34] = sub_group_elect();\n"
    "  if (x & 1) {\n"
    "    r[35] = sub_group_non_uniform_reduce_add(x);\n"
    "    r[36] = sub_group_non_uniform_scan_inclusive_add(x);\n"
    "    r[37] = sub_group_non_uniform_scan_exclusive_max(x);\n"
    "    r[38] = sub_group_broadcast_first(x);\n"
    "    r[39] = sub_group_non_uniform_all(x > 0);\n"
    "    r[40] = sub_group_elect();\n"
    "    r[41] = sub_group_clustered_reduce_max(x, 8u);\n"
    "    r[42] = sub_group_non_uniform_reduce_xor(x);\n"
    "  }\n"
    "  r[43] = sub_group_clustered_reduce_add(x, 4u);\n"
    "  r[44] = sub_group_reduce_add((char)x);\n"
    "  r[45] = sub_group_broadcast((int4)(x, x ^ 1, (int)((uint)x * 2u), ~x), 0u).z;\n"
    "  r[46] = sub_group_non_uniform_all_equal(x >> 29);\n"
    "  loc[lid] = x * 3;\n"
    "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  r[47] = loc[(lid & ~31u) + (l + 1) % n];\n"
    "  r[48] = sub_group_rotate(x, 3);\n"
    "  r[49] = sub_group_clustered_rotate(x, -1, 8u);\n"
    "  r[50] = sub_group_ballot_bit_count((uint4)((uint)x, 0u, 0u, 0u));\n"
    "  r[51] = sub_group_ballot_find_msb((uint4)((uint)x | 1u, 0u, 0u, 0u));\n"
    "  global long *rl = lo + i * NL;\n"
    "  rl[0] = sub_group_reduce_add((long)x * 100003);\n"
    "  rl[1] = sub_group_scan_exclusive_add((long)x * 3);\n"
    "  rl[2] = sub_group_broadcast((long)x * 1048576, 0u);\n"
    "  rl[3] = sub_group_shuffle((long)x * x, (l + 5) % n);\n"
    "  rl[4] = (long)sub_group_reduce_max((ulong)(uint)x << 16);\n"
    "  rl[5] = sub_group_scan_inclusive_min((long)x - 5);\n"
    "  float f = (float)(x % 1000);\n"
    "  global float *rf = fo + i * NF;\n"
    "  rf[0] = sub_group_reduce_add(f); rf[1] = sub_group_scan_inclusive_add(f); rf[2] = sub_group_reduce_max(f);\n"
    "  rf[3] = (float)sub_group_reduce_max((half)f);\n"
    "  double d = (double)(x % 100000);\n"
    "  global double *rd = dd + i * ND;\n"
    "  rd[0] = sub_group_reduce_add(d); rd[1] = sub_group_scan_exclusive_min(d); rd[2] = sub_group_shuffle_down(d, 1u);\n"
    "}\n";

/* ---- the reference ------------------------------------------------------------------------ */

static int32_t wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

struct shape {
    cl_uint dims;
    size_t local[3], groups[3];
};

static const struct shape SHAPES[] = {
    {1, {32, 1, 1}, {3, 1, 1}}, {1, {64, 1, 1}, {3, 1, 1}},  {1, {48, 1, 1}, {3, 1, 1}},
    {1, {100, 1, 1}, {3, 1, 1}}, {1, {7, 1, 1}, {5, 1, 1}},  {2, {8, 6, 1}, {2, 2, 1}},
    {2, {10, 10, 1}, {2, 3, 1}}, {2, {16, 4, 1}, {3, 2, 1}}, {2, {5, 7, 1}, {2, 2, 1}},
    {3, {4, 3, 5}, {2, 1, 2}},   {3, {32, 1, 2}, {1, 2, 2}}, {3, {3, 3, 3}, {2, 2, 1}},
};

/* Checks one work-item's value; counts and prints the first failures only. */
static int bad_total;
static void expect_i(const char *what, size_t item, int k, long long got, long long want) {
    if (got == want) {
        checks_passed++;
        return;
    }
    checks_failed++;
    if (bad_total++ < 20) printf("FAIL %s[%d] of work-item %zu: got %lld, want %lld\n", what, k, item, got, want);
}
static void expect_d(const char *what, size_t item, int k, double got, double want) {
    if (got == want) {
        checks_passed++;
        return;
    }
    checks_failed++;
    if (bad_total++ < 20) printf("FAIL %s[%d] of work-item %zu: got %g, want %g\n", what, k, item, got, want);
}

static void check_shape(cl_program p, const struct shape *s) {
    size_t L = s->local[0] * s->local[1] * s->local[2];
    size_t G = s->groups[0] * s->groups[1] * s->groups[2], N = L * G;
    size_t global[3] = {s->local[0] * s->groups[0], s->local[1] * s->groups[1], s->local[2] * s->groups[2]};
    int32_t *in = malloc(N * sizeof *in);
    srand((unsigned)(L * 7 + G));
    for (size_t i = 0; i < N; i++) {
        uint32_t v = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
        /* Some sub-groups of only positive odd values (sub_group_all, non-uniform all). */
        if ((i / 32) % 5 == 3) v = (v & 0x3fffffff) | 1;
        in[i] = (int32_t)v;
    }
    cl_int err;
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, in, &err);
    cl_mem bo = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * NI * 4, NULL, &err);
    cl_mem bl = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * NL * 8, NULL, &err);
    cl_mem bf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * NF * 4, NULL, &err);
    cl_mem bd = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * ND * 8, NULL, &err);
    CHECK(err == CL_SUCCESS, "buffers: %d", err);
    cl_kernel k = clCreateKernel(p, "sg", &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem args[5] = {bin, bo, bl, bf, bd};
    for (int a = 0; a < 5; a++) EXPECT(clSetKernelArg(k, a, sizeof(cl_mem), &args[a]), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 5, L * sizeof(int), NULL), CL_SUCCESS);

    /* What clGetKernelSubGroupInfo says about this local size. */
    size_t sgmax = 0, sgcount = 0;
    EXPECT(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, s->dims * sizeof(size_t),
                                   s->local, sizeof sgmax, &sgmax, NULL),
           CL_SUCCESS);
    EXPECT(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, s->dims * sizeof(size_t), s->local,
                                   sizeof sgcount, &sgcount, NULL),
           CL_SUCCESS);
    CHECK(sgmax == (L < 32 ? L : 32) && sgcount == (L + 31) / 32, "local %zux%zux%zu: max %zu count %zu",
          s->local[0], s->local[1], s->local[2], sgmax, sgcount);
    if (!run_kernels) goto out;

    EXPECT(clEnqueueNDRangeKernel(q, k, s->dims, NULL, global, s->local, 0, NULL, NULL), CL_SUCCESS);
    int32_t *o = malloc(N * NI * 4);
    int64_t *lo = malloc(N * NL * 8);
    float *fo = malloc(N * NF * 4);
    double *dd = malloc(N * ND * 8);
    EXPECT(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, N * NI * 4, o, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, bl, CL_TRUE, 0, N * NL * 8, lo, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, bf, CL_TRUE, 0, N * NF * 4, fo, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(q, bd, CL_TRUE, 0, N * ND * 8, dd, 0, NULL, NULL), CL_SUCCESS);
    int before = checks_failed;

    for (size_t g = 0; g < G; g++) {
        size_t nsg = (L + 31) / 32;
        for (size_t sgi = 0; sgi < nsg; sgi++) {
            size_t first = g * L + sgi * 32;
            uint32_t n = (uint32_t)(L - sgi * 32 < 32 ? L - sgi * 32 : 32);
            const int32_t *x = in + first;
            /* Sub-group-wide values. */
            int64_t sum = 0, lsum = 0;
            int32_t mn = INT32_MAX, mx = INT32_MIN, xr_odd = 0;
            uint32_t umx = 0, ballot = 0;
            int all7 = 1, any61 = 0, shr_eq = 1;
            int8_t csum = 0;
            uint64_t ulmax = 0;
            float fsum = 0, fmx = -INFINITY;
            double dsum = 0;
            for (uint32_t j = 0; j < n; j++) {
                sum += x[j];
                mn = x[j] < mn ? x[j] : mn;
                mx = x[j] > mx ? x[j] : mx;
                umx = (uint32_t)x[j] > umx ? (uint32_t)x[j] : umx;
                all7 &= x[j] % 7 != 0;
                any61 |= x[j] % 61 == 0;
                if (x[j] & 1) ballot |= 1u << j;
                shr_eq &= (x[j] >> 29) == (x[0] >> 29);
                csum = (int8_t)(csum + (int8_t)x[j]);
                lsum += (int64_t)x[j] * 100003;
                uint64_t ul = (uint64_t)(uint32_t)x[j] << 16;
                ulmax = ul > ulmax ? ul : ulmax;
                fsum += (float)(x[j] % 1000);
                fmx = (float)(x[j] % 1000) > fmx ? (float)(x[j] % 1000) : fmx;
                dsum += (double)(x[j] % 100000);
            }
            int first_odd = ballot ? __builtin_ctz(ballot) : -1;
            int64_t odd_sum = 0;
            int odd_all_pos = 1;
            for (uint32_t j = 0; j < n; j++)
                if (x[j] & 1) {
                    odd_sum += x[j];
                    xr_odd ^= x[j];
                    odd_all_pos &= x[j] > 0;
                }
            int64_t incl = 0, lexcl = 0;
            int32_t imin = INT32_MAX, emax = INT32_MIN, odd_incl = 0, odd_emax = INT32_MIN;
            uint32_t eumin = UINT32_MAX;
            int64_t lmin = INT64_MAX;
            float fincl = 0;
            double demin = INFINITY;
            for (uint32_t l = 0; l < n; l++) {
                size_t item = first + l;
                const int32_t *r = o + item * NI;
                const int64_t *rl = lo + item * NL;
                const float *rf = fo + item * NF;
                const double *rd = dd + item * ND;
                int32_t xl = x[l];
                incl += xl;
                imin = xl < imin ? xl : imin;
                int32_t want[NI];
                for (int q = 0; q < NI; q++) want[q] = UNSET;
                want[0] = (int32_t)n;
                want[1] = (int32_t)(L < 32 ? L : 32);
                want[2] = want[5] = (int32_t)nsg;
                want[3] = (int32_t)sgi;
                want[4] = (int32_t)l;
                want[6] = all7;
                want[7] = any61;
                want[8] = x[n - 1];
                want[9] = wrap(sum);
                want[10] = mn;
                want[11] = mx;
                want[12] = wrap(incl);
                want[13] = wrap(incl - xl);
                want[14] = imin;
                want[15] = emax;
                want[16] = (int32_t)umx;
                want[17] = (int32_t)eumin;
                want[18] = x[(l + 3) % n];
                want[19] = (l ^ 1) < n ? x[l ^ 1] : r[19];
                want[20] = l >= 2 ? x[l - 2] : r[20];
                want[21] = l + 3 < n ? x[l + 3] : r[21];
                want[22] = (int32_t)ballot;
                want[23] = 0;
                /* Counts, searches and masks: the first get_max_sub_group_size() bits. */
                uint32_t maxm = L >= 32 ? 0xffffffffu : (1u << L) - 1;
                want[24] = __builtin_popcount(ballot & maxm);
                want[25] = __builtin_popcount(ballot & (l == 31 ? 0xffffffffu : (2u << l) - 1));
                want[26] = __builtin_popcount(ballot & ((1u << l) - 1));
                want[27] = ballot ? __builtin_ctz(ballot) : -1;
                want[28] = ballot ? 31 - __builtin_clz(ballot) : -1;
                want[29] = (int32_t)((1u << l) - 1);
                want[30] = (int32_t)(maxm & ~((1u << l) - 1));
                want[31] = (int32_t)(1u << l);
                want[32] = (ballot >> l) & 1;
                want[33] = (ballot >> ((l + 1) % n)) & 1;
                want[34] = l == 0;
                if (xl & 1) {
                    odd_incl = wrap((int64_t)odd_incl + xl);
                    want[35] = wrap(odd_sum);
                    want[36] = odd_incl;
                    want[37] = odd_emax;
                    want[38] = x[first_odd];
                    want[39] = odd_all_pos;
                    want[40] = (int)l == first_odd;
                    int32_t cm = INT32_MIN;
                    for (uint32_t j = l & ~7u; j < (l & ~7u) + 8 && j < n; j++)
                        if (x[j] & 1) cm = x[j] > cm ? x[j] : cm;
                    want[41] = cm;
                    want[42] = xr_odd;
                    odd_emax = xl > odd_emax ? xl : odd_emax;
                }
                int64_t c4 = 0;
                for (uint32_t j = l & ~3u; j < (l & ~3u) + 4 && j < n; j++) c4 += x[j];
                want[43] = wrap(c4);
                want[44] = csum;
                want[45] = wrap((int64_t)x[0] * 2);
                want[46] = shr_eq;
                want[47] = wrap((int64_t)x[(l + 1) % n] * 3);
                /* Rotations: undefined where the source work-item does not exist. */
                uint32_t msz = (uint32_t)(L < 32 ? L : 32), rot = (l + 3) % msz, crot = (l & ~7u) + ((l + 7) & 7);
                want[48] = rot < n ? x[rot] : r[48];
                want[49] = crot < n ? x[crot] : r[49];
                want[50] = __builtin_popcount((uint32_t)xl & maxm);
                want[51] = 31 - __builtin_clz(((uint32_t)xl | 1u) & maxm);
                for (int q = 0; q < NI; q++) expect_i("int", item, q, r[q], want[q]);
                emax = xl > emax ? xl : emax;
                eumin = (uint32_t)xl < eumin ? (uint32_t)xl : eumin;

                expect_i("long", item, 0, rl[0], lsum);
                expect_i("long", item, 1, rl[1], lexcl);
                lexcl += (int64_t)xl * 3;
                expect_i("long", item, 2, rl[2], (int64_t)x[0] * (1 << 20));
                int32_t sx = x[(l + 5) % n];
                expect_i("long", item, 3, rl[3], (int64_t)sx * sx);
                expect_i("long", item, 4, rl[4], (int64_t)ulmax);
                lmin = (int64_t)xl - 5 < lmin ? (int64_t)xl - 5 : lmin;
                expect_i("long", item, 5, rl[5], lmin);

                fincl += (float)(xl % 1000);
                expect_d("float", item, 0, rf[0], fsum);
                expect_d("float", item, 1, rf[1], fincl);
                expect_d("float", item, 2, rf[2], fmx);
                expect_d("float", item, 3, rf[3], fmx);

                expect_d("double", item, 0, rd[0], dsum);
                expect_d("double", item, 1, rd[1], demin);
                demin = (double)(xl % 100000) < demin ? (double)(xl % 100000) : demin;
                if (l + 1 < n) expect_d("double", item, 2, rd[2], (double)(x[l + 1] % 100000));
            }
        }
    }
    printf("local %zux%zux%zu (%u-D), %zu groups: %s\n", s->local[0], s->local[1], s->local[2], s->dims, G,
           checks_failed == before ? "ok" : "FAILED");
    free(o);
    free(lo);
    free(fo);
    free(dd);
out:
    clReleaseKernel(k);
    for (int a = 0; a < 5; a++) clReleaseMemObject(args[a]);
    free(in);
}

/* Built-ins outside the kernel above build in every OpenCL C version; the feature macros and
 * extension macros are there. */
static void builds(void) {
    static const char *macros =
        "#if !defined(cl_khr_subgroups) || !defined(cl_khr_subgroup_ballot) || !defined(cl_khr_subgroup_shuffle) \\\n"
        "    || !defined(cl_khr_subgroup_shuffle_relative) || !defined(cl_khr_subgroup_extended_types) \\\n"
        "    || !defined(cl_khr_subgroup_non_uniform_vote) || !defined(cl_khr_subgroup_non_uniform_arithmetic) \\\n"
        "    || !defined(cl_khr_subgroup_clustered_reduce) || !defined(cl_khr_subgroup_rotate)\n"
        "#error extension macro\n#endif\n"
        "#if __OPENCL_C_VERSION__ >= 300 && !defined(__opencl_c_subgroups)\n#error __opencl_c_subgroups\n#endif\n"
        "kernel void k(global int *o) {\n"
        "  o[get_sub_group_local_id()] = sub_group_reduce_max(o[0]) + (int)get_sub_group_size();\n"
        "  o[1] = sub_group_rotate(o[2], 1) + sub_group_clustered_rotate(o[3], 2, 4u);\n"
        "#if __OPENCL_C_VERSION__ >= 200\n  sub_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_sub_group);\n#endif\n"
        "}\n";
    const char *opts[] = {NULL, "-cl-std=CL1.2", "-cl-std=CL3.0", "-cl-std=CL3.0 -cl-opt-disable"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        cl_int err;
        cl_program p = clCreateProgramWithSource(ctx, 1, &macros, NULL, &err);
        err = clBuildProgram(p, 1, &dev, opts[i], NULL, NULL);
        if (err != CL_SUCCESS) {
            char log[8192] = {0};
            clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
            CHECK(0, "build with %s: %d\n%s", opts[i] ? opts[i] : "(none)", err, log);
        }
        clReleaseProgram(p);
    }
}

/* cl_intel_required_subgroup_size: 32 is the one size; a kernel requiring it builds and says
 * so, one requiring another size does not build. */
static void required_size(void) {
    size_t sizes[4] = {0}, sz = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &sz), CL_SUCCESS);
    CHECK(sz == sizeof(size_t) && sizes[0] == 32, "CL_DEVICE_SUB_GROUP_SIZES_INTEL: %zu bytes, %zu", sz, sizes[0]);
    const char *src = "kernel __attribute__((intel_reqd_sub_group_size(32))) void k(global int *o) {\n"
                      "  o[get_global_id(0)] = get_max_sub_group_size();\n}\n"
                      "kernel void plain(global int *o) { o[0] = 0; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    EXPECT(clBuildProgram(p, 1, &dev, NULL, NULL, NULL), CL_SUCCESS);
    cl_kernel k = clCreateKernel(p, "k", &err), plain = clCreateKernel(p, "plain", &err);
    char attrs[256] = {0};
    EXPECT(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs, NULL), CL_SUCCESS);
    CHECK(strstr(attrs, "intel_reqd_sub_group_size(32)") != NULL, "CL_KERNEL_ATTRIBUTES \"%s\"", attrs);
    size_t req = 0;
    EXPECT(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL, sizeof req, &req, NULL),
           CL_SUCCESS);
    CHECK(req == 32, "CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL %zu", req);
    req = 99;
    EXPECT(clGetKernelSubGroupInfo(plain, dev, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL, sizeof req, &req,
                                   NULL),
           CL_SUCCESS);
    CHECK(req == 0, "no required size: %zu", req);
    cl_ulong spill = 99;
    EXPECT(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_SPILL_MEM_SIZE_INTEL, sizeof spill, &spill, NULL), CL_SUCCESS);
    clReleaseKernel(k);
    clReleaseKernel(plain);
    clReleaseProgram(p);
    const char *bad = "kernel __attribute__((intel_reqd_sub_group_size(16))) void k(global int *o) { o[0] = 0; }\n";
    p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    EXPECT(clBuildProgram(p, 1, &dev, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    char log[1024] = {0};
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    CHECK(strstr(log, "intel_reqd_sub_group_size(16)") != NULL, "build log: %s", log);
    clReleaseProgram(p);
}

int main(int argc, char **argv) {
    run_kernels = argc > 1 && !strcmp(argv[1], "gpu");
    cl_platform_id plat = find_platform();
    dev = find_gpu(plat);
    if (!dev) {
        printf("no GPU\nFAIL\n");
        return 1;
    }
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    char ext[4096] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    if (!strstr(ext, "cl_khr_subgroups")) {
        printf("no cl_khr_subgroups\nFAIL\n");
        return 1;
    }
    builds();
    if (strstr(ext, "cl_intel_required_subgroup_size")) required_size();
    else CHECK(0, "cl_intel_required_subgroup_size");
    const char *src = SRC;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = clBuildProgram(p, 1, &dev, "-cl-std=CL3.0", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[16384] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        CHECK(0, "build failed %d:\n%s", err, log);
    } else {
        for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++) check_shape(p, &SHAPES[i]);
    }
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    int rc = report(run_kernels ? "subgroups gpu" : "subgroups");
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
}
