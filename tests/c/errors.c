/* Table-driven error-code conformance: every OpenCL entry point called with NULL handles,
 * handles of the wrong kind, garbage handles (only without a loader in the way: ocl-icd reads
 * through a handle to find its dispatch table), released handles and bad arguments, checked
 * against the code the OpenCL 1.2 specification requires.
 *
 * Modes (argv[1]):
 *   full     a device is present (real or fake driver), reached by LD_PRELOAD: every row
 *   loader   a device is present, reached through ocl-icd: no garbage-handle rows
 *   nodevice no device: platform-level rows only
 */
#include "common.h"
#include <stdint.h>
#include <CL/cl_gl.h>

static long junk[64] = {0x1234, 0x5678}; /* what a garbage handle points at */
#define G(type) ((type)(void *)junk)
static int full, nodevice;

static void CL_CALLBACK on_event(cl_event e, cl_int s, void *d) { (void)e; (void)s; (void)d; }
static void CL_CALLBACK native_fn(void *args) { (void)args; }

static const char *SRC =
    "__kernel void k(__global float *a, __local float *l, int n) {\n"
    "  size_t i = get_global_id(0); l[get_local_id(0)] = (float)n;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); if (i < (size_t)n) a[i] = l[get_local_id(0)]; }\n";

static void platform_rows(cl_platform_id p) {
    cl_platform_id tmp;
    size_t sz = 0;
    char small[1];
    EXPECT(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformIDs(0, &tmp, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(p, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof small, small, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz == strlen("cudacl") + 1, "size %zu", sz);
    cl_device_id d;
    EXPECT(clGetDeviceIDs(p, 0, 1, &d, NULL), CL_INVALID_DEVICE_TYPE);
    EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, &d, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &d, NULL), CL_DEVICE_NOT_FOUND);
    EXPECT(clGetDeviceInfo(NULL, CL_DEVICE_NAME, 0, NULL, &sz), CL_INVALID_DEVICE);
    EXPECT(clGetDeviceInfo((cl_device_id)p, CL_DEVICE_NAME, 0, NULL, &sz), CL_INVALID_DEVICE);
    cl_int err = 0;
    EXPECT((clCreateContext(NULL, 0, NULL, NULL, NULL, &err), err), CL_INVALID_VALUE);
    cl_device_id nulldev = NULL;
    EXPECT((clCreateContext(NULL, 1, &nulldev, NULL, NULL, &err), err), CL_INVALID_DEVICE);
    EXPECT((clCreateContextFromType(NULL, 0, NULL, NULL, &err), err), CL_INVALID_DEVICE_TYPE);
    EXPECT((clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, &err), err), CL_DEVICE_NOT_FOUND);
    EXPECT(clRetainContext(NULL), CL_INVALID_CONTEXT);
    EXPECT(clReleaseContext(NULL), CL_INVALID_CONTEXT);
    EXPECT(clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, 0, NULL, &sz), CL_INVALID_CONTEXT);
    EXPECT(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clReleaseCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clRetainProgram(NULL), CL_INVALID_PROGRAM);
    EXPECT(clReleaseProgram(NULL), CL_INVALID_PROGRAM);
    EXPECT(clBuildProgram(NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    EXPECT(clRetainKernel(NULL), CL_INVALID_KERNEL);
    EXPECT(clReleaseKernel(NULL), CL_INVALID_KERNEL);
    EXPECT(clSetKernelArg(NULL, 0, 4, &err), CL_INVALID_KERNEL);
    EXPECT(clRetainEvent(NULL), CL_INVALID_EVENT);
    EXPECT(clReleaseEvent(NULL), CL_INVALID_EVENT);
    EXPECT(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    EXPECT(clRetainSampler(NULL), CL_INVALID_SAMPLER);
    EXPECT(clReleaseSampler(NULL), CL_INVALID_SAMPLER);
    EXPECT(clUnloadPlatformCompiler(p), CL_SUCCESS);
    EXPECT((clCreateUserEvent(NULL, &err), err), CL_INVALID_CONTEXT);
    if (full) {
        EXPECT(clGetPlatformInfo(G(cl_platform_id), CL_PLATFORM_NAME, 0, NULL, &sz), CL_INVALID_PLATFORM);
        EXPECT(clGetDeviceIDs(G(cl_platform_id), CL_DEVICE_TYPE_GPU, 1, &d, NULL), CL_INVALID_PLATFORM);
        EXPECT(clGetDeviceInfo(G(cl_device_id), CL_DEVICE_NAME, 0, NULL, &sz), CL_INVALID_DEVICE);
        EXPECT(clRetainContext(G(cl_context)), CL_INVALID_CONTEXT);
        EXPECT(clFinish(G(cl_command_queue)), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clReleaseMemObject(G(cl_mem)), CL_INVALID_MEM_OBJECT);
        EXPECT(clReleaseProgram(G(cl_program)), CL_INVALID_PROGRAM);
        EXPECT(clReleaseKernel(G(cl_kernel)), CL_INVALID_KERNEL);
        EXPECT(clReleaseEvent(G(cl_event)), CL_INVALID_EVENT);
        cl_context_properties bad_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)junk, 0};
        EXPECT((clCreateContextFromType(bad_platform, CL_DEVICE_TYPE_GPU, NULL, NULL, &err), err), CL_INVALID_PLATFORM);
        CHECK(clGetExtensionFunctionAddressForPlatform(p, "clIcdGetPlatformIDsKHR") != NULL, "ICD entry point by name");
        CHECK(clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunction") == NULL, "unknown name");
        CHECK(clSVMAlloc(NULL, 0, 64, 0) == NULL, "no SVM");
    }
}

static void device_rows(cl_platform_id p, cl_device_id d) {
    size_t sz = 0;
    cl_int err = 0;
    EXPECT(clGetDeviceInfo(d, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clGetDeviceInfo(d, CL_DEVICE_NAME, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz > 1, "name size %zu", sz);
    cl_device_partition_property pp[] = {CL_DEVICE_PARTITION_EQUALLY, 2, 0};
    cl_device_id sub[2];
    cl_uint nsub;
    EXPECT(clCreateSubDevices(d, pp, 2, sub, &nsub), CL_INVALID_VALUE);
    EXPECT(clCreateSubDevices(NULL, pp, 2, sub, &nsub), CL_INVALID_DEVICE);
    EXPECT(clRetainDevice(d), CL_SUCCESS);
    EXPECT(clReleaseDevice(d), CL_SUCCESS);
    EXPECT(clRetainDevice(NULL), CL_INVALID_DEVICE);

    /* Contexts */
    cl_context_properties bad_prop[] = {0x12345, 0, 0};
    EXPECT((clCreateContext(bad_prop, 1, &d, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    cl_context_properties dup_prop[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    EXPECT((clCreateContext(dup_prop, 1, &d, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    EXPECT((clCreateContext(NULL, 1, &d, NULL, &err, &err), err), CL_INVALID_VALUE);
    /* The CTS's negative_create_context(_from_type) cases. */
    cl_context_properties null_platform[] = {CL_CONTEXT_PLATFORM, 0, 0, 0, 0};
    EXPECT((clCreateContext(null_platform, 1, &d, NULL, NULL, &err), err), CL_INVALID_PLATFORM);
    EXPECT((clCreateContextFromType(null_platform, CL_DEVICE_TYPE_DEFAULT, NULL, NULL, &err), err), CL_INVALID_PLATFORM);
    cl_context_properties named_by_pointer[] = {(cl_context_properties)"INVALID_PROPERTY", 0, 0};
    EXPECT((clCreateContext(named_by_pointer, 1, &d, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    cl_context_properties bad_sync[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
    EXPECT((clCreateContext(bad_sync + 2, 1, &d, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    EXPECT((clCreateContextFromType(bad_sync, CL_DEVICE_TYPE_DEFAULT, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    cl_context_properties dup_sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, 0};
    EXPECT((clCreateContext(dup_sync, 1, &d, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    EXPECT((clCreateContextFromType(dup_prop, CL_DEVICE_TYPE_DEFAULT, NULL, NULL, &err), err), CL_INVALID_PROPERTY);
    EXPECT((clCreateContext(NULL, 1, NULL, NULL, NULL, &err), err), CL_INVALID_VALUE);
    EXPECT((clCreateContext(NULL, 0, &d, NULL, NULL, &err), err), CL_INVALID_VALUE);
    cl_device_id null_device = NULL;
    EXPECT((clCreateContext(NULL, 1, &null_device, NULL, NULL, &err), err), CL_INVALID_DEVICE);
    EXPECT((clCreateContextFromType(NULL, 0, NULL, NULL, &err), err), CL_INVALID_DEVICE_TYPE);
    EXPECT((clCreateContextFromType(NULL, CL_DEVICE_TYPE_DEFAULT, NULL, &err, &err), err), CL_INVALID_VALUE);
    EXPECT((clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, &err), err), CL_DEVICE_NOT_FOUND);
    EXPECT((clCreateContextFromType(NULL, CL_DEVICE_TYPE_ACCELERATOR, NULL, NULL, &err), err), CL_DEVICE_NOT_FOUND);
    EXPECT((clCreateContextFromType(NULL, CL_DEVICE_TYPE_CUSTOM, NULL, NULL, &err), err), CL_DEVICE_NOT_FOUND);
    cl_context_properties sync_ok[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, 0};
    cl_context sctx = clCreateContext(sync_ok, 1, &d, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    if (sctx) EXPECT(clReleaseContext(sctx), CL_SUCCESS);
    cl_context_properties good[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    cl_context ctx = clCreateContext(good, 1, &d, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    if (!ctx) return;
    EXPECT(clGetContextInfo(ctx, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz == sizeof good, "properties size %zu", sz);

    /* Queues */
    EXPECT((clCreateCommandQueue(NULL, d, 0, &err), err), CL_INVALID_CONTEXT);
    EXPECT((clCreateCommandQueue(ctx, NULL, 0, &err), err), CL_INVALID_DEVICE);
    EXPECT((clCreateCommandQueue(ctx, d, 0xff00, &err), err), CL_INVALID_VALUE);
    cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
    EXPECT(err, CL_SUCCESS);
    if (!q) return;
    EXPECT(clGetCommandQueueInfo((cl_command_queue)ctx, CL_QUEUE_CONTEXT, 0, NULL, &sz), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clGetContextInfo((cl_context)q, CL_CONTEXT_NUM_DEVICES, 0, NULL, &sz), CL_INVALID_CONTEXT);
    EXPECT(clGetCommandQueueInfo(q, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueBarrierWithWaitList(q, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    cl_event nullev = NULL;
    EXPECT(clEnqueueMarkerWithWaitList(q, 1, &nullev, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueWaitForEvents(q, 0, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueBarrier(q), CL_SUCCESS);
    cl_event marker = NULL;
    EXPECT(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);

    /* Events */
    EXPECT(clWaitForEvents(1, &nullev), CL_INVALID_EVENT);
    EXPECT(clGetEventInfo(NULL, CL_EVENT_CONTEXT, 0, NULL, &sz), CL_INVALID_EVENT);
    EXPECT(clGetEventInfo((cl_event)q, CL_EVENT_CONTEXT, 0, NULL, &sz), CL_INVALID_EVENT);
    cl_event ue = clCreateUserEvent(ctx, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clGetEventInfo(ue, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clSetEventCallback(ue, 99, on_event, NULL), CL_INVALID_VALUE);
    EXPECT(clSetEventCallback(ue, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);
    cl_ulong t;
    EXPECT(clGetEventProfilingInfo(ue, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT(clSetUserEventStatus(ue, 5), CL_INVALID_VALUE);
    EXPECT(clSetUserEventStatus(ue, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clSetUserEventStatus(ue, CL_COMPLETE), CL_INVALID_OPERATION);
    if (marker) {
        EXPECT(clSetUserEventStatus(marker, CL_COMPLETE), CL_INVALID_EVENT);
        EXPECT(clGetEventProfilingInfo(marker, 0xdead, sizeof t, &t, NULL), CL_INVALID_VALUE);
        EXPECT(clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_SUCCESS);
    }
    cl_context ctx2 = clCreateContext(good, 1, &d, NULL, NULL, &err);
    cl_event ue2 = clCreateUserEvent(ctx2, &err);
    cl_event mixed[2] = {ue, ue2};
    EXPECT(clWaitForEvents(2, mixed), CL_INVALID_CONTEXT);
    EXPECT(clEnqueueMarkerWithWaitList(q, 1, &ue2, NULL), CL_INVALID_CONTEXT);
    clSetUserEventStatus(ue2, CL_COMPLETE);
    clReleaseEvent(ue2);
    clReleaseContext(ctx2);

    /* Buffers */
    char host[256];
    EXPECT((clCreateBuffer(NULL, CL_MEM_READ_WRITE, 64, NULL, &err), err), CL_INVALID_CONTEXT);
    EXPECT((clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err), err), CL_INVALID_BUFFER_SIZE);
    EXPECT((clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL, &err), err), CL_INVALID_VALUE);
    EXPECT((clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &err), err), CL_INVALID_HOST_PTR);
    EXPECT((clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, host, &err), err), CL_INVALID_HOST_PTR);
    EXPECT((clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host, &err), err), CL_INVALID_VALUE);
    cl_ulong maxalloc = 0;
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
    EXPECT((clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)maxalloc + 1, NULL, &err), err), CL_INVALID_BUFFER_SIZE);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_mem ro = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 256, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clGetMemObjectInfo(NULL, CL_MEM_SIZE, 0, NULL, &sz), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetMemObjectInfo((cl_mem)ctx, CL_MEM_SIZE, 0, NULL, &sz), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetMemObjectInfo(buf, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    cl_buffer_region region = {0, 1024};
    EXPECT((clCreateSubBuffer(NULL, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err), CL_INVALID_MEM_OBJECT);
    EXPECT((clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err), CL_INVALID_VALUE);
    cl_buffer_region misaligned = {4, 16};
    EXPECT((clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err), err), CL_MISALIGNED_SUB_BUFFER_OFFSET);
    /* piglit's clGetMemObjectInfo: a sub-buffer at byte 256 of a 512-byte buffer (2048-bit alignment) */
    cl_uint align_bits = 0;
    EXPECT(clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL), CL_SUCCESS);
    EXPECT(align_bits, 2048);
    cl_mem big = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 512, NULL, &err);
    cl_buffer_region half = {256, 256}, half_mis = {128, 128};
    cl_mem sub256 = clCreateSubBuffer(big, 0, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT((clCreateSubBuffer(big, 0, CL_BUFFER_CREATE_TYPE_REGION, &half_mis, &err), err), CL_MISALIGNED_SUB_BUFFER_OFFSET);
    if (sub256) clReleaseMemObject(sub256);
    clReleaseMemObject(big);
    EXPECT((clCreateSubBuffer(buf, 0, 0x9999, &region, &err), err), CL_INVALID_VALUE);
    EXPECT(clSetMemObjectDestructorCallback(buf, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(NULL, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadBuffer(q, buf, CL_TRUE, 250, 16, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, host, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueReadBuffer(q, ro, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 512, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBuffer(q, ro, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(clEnqueueCopyBuffer(q, buf, buf, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyBuffer(q, buf, buf, 0, 200, 100, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t zero3[3] = {0, 0, 0}, region0[3] = {0, 1, 1}, big3[3] = {512, 1, 1};
    EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, zero3, zero3, region0, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBufferRect(q, buf, CL_TRUE, zero3, zero3, big3, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBufferRect(q, buf, buf, zero3, zero3, region0, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    int pattern = 7;
    EXPECT(clEnqueueFillBuffer(q, buf, &pattern, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, buf, &pattern, 4, 2, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(q, buf, NULL, 4, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT((clEnqueueMapBuffer(q, NULL, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, NULL, &err), err), CL_INVALID_MEM_OBJECT);
    EXPECT((clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, 250, 16, 0, NULL, NULL, &err), err), CL_INVALID_VALUE);
    EXPECT(clEnqueueUnmapMemObject(q, buf, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(q, 0, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(q, 1, &buf, 0x80, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_SUCCESS);

    /* Images and samplers: the handle and argument checks (tests/c/images.c has the rest). */
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = desc.image_height = 4;
    EXPECT((clCreateImage(NULL, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err), err), CL_INVALID_CONTEXT);
    EXPECT((clCreateSampler(NULL, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err), err), CL_INVALID_CONTEXT);
    EXPECT((clCreateSampler(ctx, CL_FALSE, 0x1234, CL_FILTER_NEAREST, &err), err), CL_INVALID_VALUE);
    cl_uint nfmt = 0;
    EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nfmt), CL_SUCCESS);
    {
        cl_image_format fmts[4];
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, 0x9999, 0, NULL, &nfmt), CL_INVALID_VALUE);
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_BUFFER, 0, NULL, &nfmt), CL_INVALID_VALUE);
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nfmt),
               CL_INVALID_VALUE);
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, fmts, &nfmt), CL_INVALID_VALUE);
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE3D, 4, fmts, &nfmt), CL_SUCCESS);
    }
    CHECK(nfmt >= 10, "the required image formats, got %u", nfmt);
    size_t origin[3] = {0, 0, 0}, reg[3] = {1, 1, 1};
    EXPECT(clEnqueueReadImage(q, buf, CL_TRUE, origin, reg, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadImage(NULL, buf, CL_TRUE, origin, reg, 0, 0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clGetImageInfo(buf, CL_IMAGE_WIDTH, 0, NULL, &sz), CL_INVALID_MEM_OBJECT);

    /* OpenCL 2.x/3.0 features the devices report absent (tests/c/cl30.c has them all), the
     * host timer (present), and GL sharing. */
    {
        /* With coarse-grain SVM a copy onto itself overlaps; without SVM it is refused. */
        cl_device_id qd = NULL;
        cl_device_svm_capabilities svm = 0;
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL);
        clGetDeviceInfo(qd, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
        EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, host, host, 4, 0, NULL, NULL),
               svm ? CL_MEM_COPY_OVERLAP : CL_INVALID_OPERATION);
    }
    EXPECT((clCreatePipe(ctx, 0, 4, 4, NULL, &err), err), CL_INVALID_OPERATION);
    cl_ulong ht;
    EXPECT(clGetHostTimer(d, &ht), CL_SUCCESS);
    EXPECT(clGetHostTimer(d, NULL), CL_INVALID_VALUE);
    EXPECT((clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err), err), CL_INVALID_CONTEXT);

    /* Programs */
    const char *nullsrc = NULL;
    EXPECT((clCreateProgramWithSource(NULL, 1, &SRC, NULL, &err), err), CL_INVALID_CONTEXT);
    EXPECT((clCreateProgramWithSource(ctx, 0, NULL, NULL, &err), err), CL_INVALID_VALUE);
    EXPECT((clCreateProgramWithSource(ctx, 1, &nullsrc, NULL, &err), err), CL_INVALID_VALUE);
    const unsigned char *bin = (const unsigned char *)"junk";
    size_t binlen = 4;
    cl_int binstatus = 0;
    EXPECT((clCreateProgramWithBinary(ctx, 1, &d, &binlen, &bin, &binstatus, &err), err), CL_INVALID_BINARY);
    CHECK(binstatus == CL_INVALID_BINARY, "binary status %d", binstatus);
    EXPECT((clCreateProgramWithBuiltInKernels(ctx, 1, &d, "foo", &err), err), CL_INVALID_VALUE);
    /* 16 bytes are too short for SPIR-V; without IL support the call is refused first. */
    EXPECT((clCreateProgramWithIL(ctx, host, 16, &err), err), device_has_il(d) ? CL_INVALID_VALUE : CL_INVALID_OPERATION);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_uint nk;
    EXPECT(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT(clGetProgramInfo(NULL, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL), CL_INVALID_PROGRAM);
    EXPECT(clGetProgramInfo(prog, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
    EXPECT(clGetProgramBuildInfo(prog, NULL, CL_PROGRAM_BUILD_STATUS, 0, NULL, &sz), CL_INVALID_DEVICE);
    EXPECT((clCreateKernel(prog, "k", &err), err), CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT(clBuildProgram(prog, 0, NULL, "-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    EXPECT(clBuildProgram(prog, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    const char *broken = "__kernel void k(__global int *a) { a[0] = undeclared; }";
    cl_program bad = clCreateProgramWithSource(ctx, 1, &broken, NULL, &err);
    EXPECT(clBuildProgram(bad, 0, NULL, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    char log[4096] = {0};
    EXPECT(clGetProgramBuildInfo(bad, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL), CL_SUCCESS);
    CHECK(strstr(log, "undeclared") != NULL && strstr(log, ":1:") != NULL, "build log names the error and its line: %s", log);
    clReleaseProgram(bad);

    /* Kernels */
    EXPECT((clCreateKernel(NULL, "k", &err), err), CL_INVALID_PROGRAM);
    EXPECT((clCreateKernel(prog, "nope", &err), err), CL_INVALID_KERNEL_NAME);
    EXPECT((clCreateKernel(prog, NULL, &err), err), CL_INVALID_VALUE);
    cl_kernel k = clCreateKernel(prog, "k", &err);
    EXPECT(err, CL_SUCCESS);
    if (k) {
        size_t gws = 64, lws = 64, bad_lws = 2048, odd_gws = 100;
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, &lws, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
        EXPECT(clSetKernelArg(k, 99, sizeof buf, &buf), CL_INVALID_ARG_INDEX);
        EXPECT(clSetKernelArg(k, 0, 4, &buf), CL_INVALID_ARG_SIZE);
        cl_mem nullmem = NULL;
        EXPECT(clSetKernelArg(k, 0, sizeof nullmem, &nullmem), CL_SUCCESS);
        EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &ctx), CL_INVALID_MEM_OBJECT);
        EXPECT(clSetKernelArg(k, 1, 64, &pattern), CL_INVALID_ARG_VALUE);
        EXPECT(clSetKernelArg(k, 1, 0, NULL), CL_INVALID_ARG_SIZE);
        EXPECT(clSetKernelArg(k, 2, 8, &pattern), CL_INVALID_ARG_SIZE);
        EXPECT(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
        EXPECT(clSetKernelArg(k, 1, 256, NULL), CL_SUCCESS);
        EXPECT(clSetKernelArg(k, 2, sizeof(int), &pattern), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, k, 0, NULL, &gws, &lws, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
        EXPECT(clEnqueueNDRangeKernel(q, k, 4, NULL, &gws, &lws, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
        /* OpenCL 2.1+ (cudacl reports 3.0): no global size is an empty range, which runs nothing. */
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, &lws, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, &bad_lws, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &odd_gws, &lws, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
        EXPECT(clEnqueueNDRangeKernel(NULL, k, 1, NULL, &gws, &lws, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clEnqueueNDRangeKernel(q, NULL, 1, NULL, &gws, &lws, 0, NULL, NULL), CL_INVALID_KERNEL);
        EXPECT(clEnqueueNativeKernel(q, native_fn, NULL, 0, 0, NULL, NULL, 0, NULL, NULL), CL_INVALID_OPERATION);
        char argname[64];
        EXPECT(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof argname, argname, NULL), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        size_t gsz[3];
        EXPECT(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof gsz, gsz, NULL), CL_INVALID_VALUE);
        EXPECT(clGetKernelInfo(k, 0xdead, 0, NULL, &sz), CL_INVALID_VALUE);
        EXPECT(clGetKernelInfo((cl_kernel)prog, CL_KERNEL_NUM_ARGS, 0, NULL, &sz), CL_INVALID_KERNEL);
        EXPECT(clReleaseProgram(prog), CL_SUCCESS); /* the kernel keeps the program alive */
        cl_program kp = NULL;
        EXPECT(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof kp, &kp, NULL), CL_SUCCESS);
        EXPECT(clReleaseKernel(k), CL_SUCCESS);
    }

    /* Released handles are rejected, also through a loader, which reads the dispatch pointer
     * through the handle before cudacl sees the call: a released handle must still point at one. */
    {
        cl_event dead = clCreateUserEvent(ctx, &err);
        EXPECT(clReleaseEvent(dead), CL_SUCCESS);
        EXPECT(clGetEventInfo(dead, CL_EVENT_CONTEXT, 0, NULL, &sz), CL_INVALID_EVENT);
        EXPECT(clRetainEvent(dead), CL_INVALID_EVENT);
        cl_mem deadmem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        EXPECT(clReleaseMemObject(deadmem), CL_SUCCESS);
        EXPECT(clReleaseMemObject(deadmem), CL_INVALID_MEM_OBJECT);
        EXPECT(clRetainMemObject(deadmem), CL_INVALID_MEM_OBJECT);
        cl_command_queue deadq = clCreateCommandQueue(ctx, d, 0, &err);
        EXPECT(err, CL_SUCCESS);
        EXPECT(clReleaseCommandQueue(deadq), CL_SUCCESS);
        EXPECT(clRetainCommandQueue(deadq), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clReleaseCommandQueue(deadq), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clFinish(deadq), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clGetCommandQueueInfo(deadq, CL_QUEUE_CONTEXT, 0, NULL, &sz), CL_INVALID_COMMAND_QUEUE);
        const char *src = "__kernel void k(__global int *p) { p[0] = 1; }";
        cl_program deadp = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
        EXPECT(err, CL_SUCCESS);
        EXPECT(clReleaseProgram(deadp), CL_SUCCESS);
        EXPECT(clRetainProgram(deadp), CL_INVALID_PROGRAM);
        EXPECT(clReleaseProgram(deadp), CL_INVALID_PROGRAM);
        EXPECT(clBuildProgram(deadp, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
        EXPECT(clGetProgramInfo(deadp, CL_PROGRAM_NUM_DEVICES, 0, NULL, &sz), CL_INVALID_PROGRAM);
        EXPECT((clCreateKernel(deadp, "k", &err), err), CL_INVALID_PROGRAM);
        cl_context deadctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
        EXPECT(err, CL_SUCCESS);
        EXPECT(clReleaseContext(deadctx), CL_SUCCESS);
        /* Let the allocator hand the released objects' memory out again, filled with garbage:
         * a handle whose memory went back to malloc now points at 0xab bytes. */
        enum { SPRAY = 4096 };
        static void *spray[SPRAY];
        for (int i = 0; i < SPRAY; i++) {
            size_t n = 16 + 16 * (size_t)(i % 128);
            spray[i] = malloc(n);
            if (spray[i]) memset(spray[i], 0xab, n);
        }
        EXPECT(clRetainEvent(dead), CL_INVALID_EVENT);
        EXPECT(clRetainMemObject(deadmem), CL_INVALID_MEM_OBJECT);
        EXPECT(clRetainProgram(deadp), CL_INVALID_PROGRAM);
        EXPECT(clRetainCommandQueue(deadq), CL_INVALID_COMMAND_QUEUE);
        EXPECT(clRetainContext(deadctx), CL_INVALID_CONTEXT);
        for (int i = 0; i < SPRAY; i++) free(spray[i]);
        EXPECT((clCreateBuffer(deadctx, CL_MEM_READ_WRITE, 64, NULL, &err), err), CL_INVALID_CONTEXT);
        /* Many objects made and released: their handles' memory is reused only as handles. */
        for (int i = 0; i < 10000; i++) {
            cl_event e = clCreateUserEvent(ctx, &err);
            if (err != CL_SUCCESS || clReleaseEvent(e) != CL_SUCCESS) {
                CHECK(0, "create/release of user event %d", i);
                break;
            }
        }
        EXPECT(clGetEventInfo(dead, CL_EVENT_CONTEXT, 0, NULL, &sz), CL_INVALID_EVENT);
        EXPECT(clRetainCommandQueue(deadq), CL_INVALID_COMMAND_QUEUE);
    }
    if (full) {
        EXPECT(clEnqueueSVMMemFill(G(cl_command_queue), host, host, 4, 4, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    }

    if (marker) clReleaseEvent(marker);
    clReleaseEvent(ue);
    clReleaseMemObject(buf);
    clReleaseMemObject(ro);
    EXPECT(clReleaseCommandQueue(q), CL_SUCCESS);
    EXPECT(clReleaseContext(ctx), CL_SUCCESS);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "full";
    full = strcmp(mode, "full") == 0;
    nodevice = strcmp(mode, "nodevice") == 0;
    cl_platform_id p = find_platform();
    if (!p) {
        printf("no cudacl platform\n");
        return 2;
    }
    platform_rows(p);
    cl_device_id d = find_gpu(p);
    if (nodevice) {
        CHECK(d == NULL, "no device expected");
    } else if (!d) {
        printf("no device\n");
        return 2;
    } else {
        device_rows(p, d);
    }
    return report("errors");
}
