/* ompcl runtime. The C file linked into every program is the concatenation, in this order, of
 * rt_base.c, rt_memory.c, rt_device.c, rt_stage.c, rt_rows.c, rt_launch.c, rt_split.c, rt_omp.c, rt_target.c
 * (ompcl/src/lib.rs: RT_C).
 *
 * Its parts: device choice, OpenCL loaded with dlopen, the host-allocation table with
 * write tracking, kernel launch with two-stage reductions, and the OMPCL_PROFILE report.
 *
 * Data-tracking rule (see README): every block (malloc'd or global) has at most one device buffer.
 * A block is copied host->device when it has no device copy yet or when the host may have written
 * it since the last copy. "May have written" is tracked with page protection: after a block has
 * been synchronised, its whole pages are made read-only; the first host write to them faults, the
 * handler makes them writable again and marks the block host-dirty. Bytes of a block that do not
 * fill whole pages (small blocks, the edges of globals) are copied on every region that uses them.
 * After a kernel, the blocks the region may write (from the translator's analysis) are copied back
 * on the host's first access (lazy copy-back: their whole pages become inaccessible, rt_memory.c's
 * fetch_pages brings them back), so results nobody reads never cross the bus; with OMPCL_LAZY=0
 * at once.
 */
#define _GNU_SOURCE
#include "ompcl_rt.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The program is linked with --wrap for the allocation functions (driver.rs: WRAPPED): every call
   its objects make reaches ompcl_malloc & co., also those the translator cannot rewrite (spelled in
   a header's macro, as PolyBench's POLYBENCH_FREE_ARRAY is, or called through a pointer). A tracked
   block that libc's free or realloc touched behind the table's back could be one whose pages are
   protected: the fault would come inside libc with its allocator lock held, and the handler's
   OpenCL calls would then wait on that lock forever. The runtime's own allocations use libc's. */
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
int __real_posix_memalign(void **, size_t, size_t);
#define malloc __real_malloc
#define calloc __real_calloc
#define realloc __real_realloc
#define free __real_free
#define posix_memalign __real_posix_memalign

/* ---- minimal OpenCL 1.2 declarations (no OpenCL headers needed to build) ---- */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef int64_t cl_long;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;
#define CL_SUCCESS 0
#define CL_DEVICE_TYPE_CPU (1 << 1)
#define CL_DEVICE_TYPE_GPU (1 << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_EXTENSIONS 0x1030
#define CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE 0x1020
#define CL_DEVICE_MAX_CONSTANT_ARGS 0x1021
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_MEM_READ_WRITE 1
#define CL_MEM_ALLOC_HOST_PTR (1 << 4)
#define CL_MAP_WRITE (1 << 1)
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_KERNEL_WORK_GROUP_SIZE 0x11B0
#define CL_CONTEXT_PLATFORM 0x1084

static struct {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int *);
    cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void *, cl_int *);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
    cl_int (*Finish)(cl_command_queue);
    void *(*EnqueueMapBuffer)(cl_command_queue, cl_mem, cl_uint, cl_bitfield, size_t, size_t, cl_uint, const cl_event *, cl_event *, cl_int *);
    cl_int (*WaitForEvents)(cl_uint, const cl_event *);
    cl_int (*ReleaseEvent)(cl_event);
    /* optional (OpenCL 1.2; NULL where the library lacks it): rt_split.c's zero fills */
    cl_int (*EnqueueFillBuffer)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
} cl;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_launch = PTHREAD_MUTEX_INITIALIZER;
static int g_init;          /* 0 not yet, 1 done */
static int g_have_cl;       /* an OpenCL device is in use */
static cl_device_id g_dev;
static cl_context g_ctx;
static cl_command_queue g_q;
static char g_devname[256], g_platname[256];
/* the devices regions are split over (rt_split.c): [0] is g_dev, g_ctx, g_q */
#define MAXDEV 16
static int g_ndev = 1;
static cl_device_id g_xdev[MAXDEV];
static cl_context g_xctx[MAXDEV];
static cl_command_queue g_xq[MAXDEV];
static char g_devs_desc[96] = "1 device"; /* what OMPCL_DEVICES chose, for the profile */
/* the devices share one context (g_ctx), and a split region's data moves between them with
   clEnqueueCopyBuffer (rt_split.c, OMPCL_PEER) */
static int g_peer;
static int g_fp64;
/* critical sections under a device lock may run on the device: it guarantees forward progress to
   diverged work-items (NVIDIA compute capability >= 7: independent thread scheduling), or
   OMPCL_DEVICE_LOCKS=1 says so (e.g. to test on PoCL's CPU device, whose work-items of one group
   run one after the other and whose groups are threads) */
static int g_devlocks;
static int g_nv_cc;          /* NVIDIA compute capability major (cl_nv_device_attribute_query), 0 if none */
static cl_ulong g_max_const; /* CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE */
static cl_uint g_max_const_args;
static int g_profile;
static int g_notrack; /* OMPCL_TRACK=0: no page protection, every used block is copied each time */
static int g_place_device; /* OMPCL_PLACEMENT=device: every offloadable region on the device */
static int g_eager; /* blocks a kernel wrote are copied back at once (OMPCL_LAZY=0), else on first host access */
static long g_page = 4096;

double ompcl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void warnf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ompcl: warning: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}
