/* Device pointers, self-checking: cl_ext_buffer_device_address (buffers with fixed device
 * addresses, clSetKernelArgDevicePointerEXT, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT) and
 * coarse-grain buffer SVM (clSVMAlloc/Free, clEnqueueSVM*, clSetKernelArgSVMPointer, buffers
 * on SVM memory). Prints PASS or FAIL last.
 *
 *   ./devptr        queries, error codes, and the SVM commands that move data (copies, fills,
 *                   maps: the fake CUDA driver performs those too)
 *   ./devptr gpu    also the kernels: addresses seen by kernels, pointers stored in buffers and
 *                   followed by kernels, kernels on SVM memory (needs a real device) */
#include "common.h"
#include <CL/cl_ext.h>
#include <stdint.h>

#ifndef cl_ext_buffer_device_address
#define cl_ext_buffer_device_address 1
typedef cl_ulong cl_mem_device_address_ext;
#define CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT 0x5000
#define CL_MEM_DEVICE_ADDRESS_EXT 0x5001
#define CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT 0x5002
typedef cl_int(CL_API_CALL *clSetKernelArgDevicePointerEXT_fn)(cl_kernel, cl_uint, cl_mem_device_address_ext);
#endif

static cl_platform_id plat;
static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static int gpu;
static clSetKernelArgDevicePointerEXT_fn set_devptr;

#define N 1024

static const char *SRC =
    "kernel void get_addr(global int *buffer, global ulong *addr) {\n"
    "  for (int i = 0; i < 1024; ++i) buffer[i] += 1;\n"
    "  *addr = (ulong)buffer;\n"
    "}\n"
    "kernel void indirect_access(global long *in_addr, global int *out) {\n"
    "  *out = **(global int *global *)in_addr;\n"
    "}\n"
    "kernel void ptr_arith(global int *in_addr, global int *out) { *out = *(in_addr - 2); }\n"
    /* A linked list of nodes {value, next address}: each work-item walks from its head. */
    "typedef struct { long value; global void *next; } node;\n"
    "kernel void walk(global ulong *heads, global long *sums) {\n"
    "  size_t i = get_global_id(0);\n"
    "  long s = 0; int n = 0;\n"
    "  for (global node *p = (global node *)heads[i]; p && n < 10000; p = (global node *)p->next, n++)\n"
    "    s += p->value;\n"
    "  sums[i] = s;\n"
    "}\n"
    "kernel void scale(global int *a, int k) { size_t i = get_global_id(0); a[i] = a[i] * k + (int)i; }\n";

static cl_program build(const char *src) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        CHECK(0, "build %d:\n%s", err, log);
    }
    return p;
}

static cl_mem bda_buffer(cl_mem_flags flags, size_t size, void *host, cl_int *err) {
    cl_mem_properties props[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, 0};
    return clCreateBufferWithProperties(ctx, props, flags, size, host, err);
}

static cl_mem_device_address_ext address_of(cl_mem m) {
    cl_mem_device_address_ext a = 0;
    EXPECT(clGetMemObjectInfo(m, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a, NULL), CL_SUCCESS);
    return a;
}

/* ---- cl_ext_buffer_device_address ------------------------------------------------------- */
static void test_bda(cl_program p) {
    cl_int err;
    static int host[N];
    for (int i = 0; i < N; i++) host[i] = i;
    cl_mem b = bda_buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
    CHECK(err == CL_SUCCESS && b, "buffer with a device address: %d", err);
    size_t sz = 0;
    EXPECT(clGetMemObjectInfo(b, CL_MEM_DEVICE_ADDRESS_EXT, 0, NULL, &sz), CL_SUCCESS);
    CHECK(sz == sizeof(cl_mem_device_address_ext), "one address per device: %zu bytes", sz);
    cl_mem_device_address_ext addr = address_of(b), small = 0;
    CHECK(addr != 0 && (!gpu || addr % 256 == 0), "address %#llx", (unsigned long long)addr);
    EXPECT(clGetMemObjectInfo(b, CL_MEM_DEVICE_ADDRESS_EXT, 4, &small, NULL), CL_INVALID_VALUE);
    cl_mem_properties got[4] = {9, 9, 9, 9};
    EXPECT(clGetMemObjectInfo(b, CL_MEM_PROPERTIES, sizeof got, got, &sz), CL_SUCCESS);
    CHECK(sz == 3 * sizeof(cl_mem_properties) && got[0] == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT && got[1] == CL_TRUE &&
              got[2] == 0,
          "CL_MEM_PROPERTIES (%zu bytes)", sz);
    /* The address stays the same for the buffer's life, whatever runs on it. */
    int one = 5;
    EXPECT(clEnqueueFillBuffer(q, b, &one, sizeof one, 0, sizeof one, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    CHECK(address_of(b) == addr, "the address moved");
    /* A sub-buffer: its origin added. */
    cl_buffer_region r = {256, 512};
    cl_mem sub = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    CHECK(err == CL_SUCCESS, "sub-buffer: %d", err);
    CHECK(address_of(sub) == addr + 256, "sub-buffer address");
    /* Without the property (or with it false): no address. */
    cl_mem plain = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_mem_device_address_ext a = 0;
    EXPECT(clGetMemObjectInfo(plain, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a, NULL), CL_INVALID_OPERATION);
    cl_mem_properties off[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_FALSE, 0};
    cl_mem nob = clCreateBufferWithProperties(ctx, off, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(err == CL_SUCCESS, "property false: %d", err);
    EXPECT(clGetMemObjectInfo(nob, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a, NULL), CL_INVALID_OPERATION);
    clReleaseMemObject(nob);
    /* Bad property lists. */
    cl_mem_properties bad_value[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, 2, 0};
    cl_mem_properties twice[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE, 0};
    cl_mem_properties unknown[] = {0x5003, CL_TRUE, 0};
    CHECK(!clCreateBufferWithProperties(ctx, bad_value, CL_MEM_READ_WRITE, 64, NULL, &err) && err == CL_INVALID_PROPERTY,
          "bad value: %d", err);
    CHECK(!clCreateBufferWithProperties(ctx, twice, CL_MEM_READ_WRITE, 64, NULL, &err) && err == CL_INVALID_PROPERTY,
          "twice: %d", err);
    CHECK(!clCreateBufferWithProperties(ctx, unknown, CL_MEM_READ_WRITE, 64, NULL, &err) && err == CL_INVALID_PROPERTY,
          "unknown: %d", err);

    /* clSetKernelArgDevicePointerEXT and CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT. */
    cl_kernel arith = clCreateKernel(p, "ptr_arith", &err);
    cl_kernel ind = clCreateKernel(p, "indirect_access", &err);
    cl_kernel getaddr = clCreateKernel(p, "get_addr", &err);
    cl_kernel scale = clCreateKernel(p, "scale", &err);
    EXPECT(set_devptr(arith, 0, addr + 8), CL_SUCCESS);
    EXPECT(set_devptr(arith, 0, 0), CL_SUCCESS);
    EXPECT(set_devptr(arith, 0, 0x1000), CL_INVALID_ARG_VALUE);
    EXPECT(set_devptr(arith, 0, addr + sizeof host + 64), CL_INVALID_ARG_VALUE);
    EXPECT(set_devptr(arith, 2, addr), CL_INVALID_ARG_INDEX);
    EXPECT(set_devptr(scale, 1, addr), CL_INVALID_ARG_INDEX); /* int k */
    EXPECT(set_devptr(NULL, 0, addr), CL_INVALID_KERNEL);
    EXPECT(clSetKernelExecInfo(ind, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof addr, &addr), CL_SUCCESS);
    EXPECT(clSetKernelExecInfo(ind, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, 3, &addr), CL_INVALID_VALUE);
    EXPECT(clSetKernelExecInfo(ind, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof addr, NULL), CL_INVALID_VALUE);

    if (gpu) {
        /* The address a kernel sees for the buffer argument is the queried one. */
        cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_ulong), NULL, &err);
        for (int i = 0; i < N; i++) host[i] = i;
        EXPECT(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clSetKernelArg(getaddr, 0, sizeof b, &b), CL_SUCCESS);
        EXPECT(clSetKernelArg(getaddr, 1, sizeof out, &out), CL_SUCCESS);
        size_t one_item = 1;
        EXPECT(clEnqueueNDRangeKernel(q, getaddr, 1, NULL, &one_item, NULL, 0, NULL, NULL), CL_SUCCESS);
        cl_ulong seen = 0;
        EXPECT(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof seen, &seen, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), CL_SUCCESS);
        CHECK(seen == addr, "kernel sees %#llx, API says %#llx", (unsigned long long)seen, (unsigned long long)addr);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += host[i] != i + 1;
        CHECK(bad == 0, "get_addr: %d wrong", bad);

        /* A pointer stored in a buffer, followed by the kernel (exec info names the buffer). */
        int data_in = 0x12348765, data_out = -1;
        EXPECT(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof data_in, &data_in, 0, NULL, NULL), CL_SUCCESS);
        cl_mem in_long = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof addr, &addr, &err);
        cl_mem out_int = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int), NULL, &err);
        EXPECT(clSetKernelArg(ind, 0, sizeof in_long, &in_long), CL_SUCCESS);
        EXPECT(clSetKernelArg(ind, 1, sizeof out_int, &out_int), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, ind, 1, NULL, &one_item, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(q, out_int, CL_TRUE, 0, sizeof data_out, &data_out, 0, NULL, NULL), CL_SUCCESS);
        CHECK(data_out == data_in, "indirect access: %#x, want %#x", data_out, data_in);

        /* A raw pointer into the middle of the buffer, reading before it. */
        data_out = -1;
        EXPECT(set_devptr(arith, 0, addr + 8), CL_SUCCESS);
        EXPECT(clSetKernelArg(arith, 1, sizeof out_int, &out_int), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, arith, 1, NULL, &one_item, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(q, out_int, CL_TRUE, 0, sizeof data_out, &data_out, 0, NULL, NULL), CL_SUCCESS);
        CHECK(data_out == data_in, "pointer arithmetic: %#x, want %#x", data_out, data_in);

        /* A raw pointer argument a kernel writes through: later reads see it. */
        for (int i = 0; i < N; i++) host[i] = 3 * i;
        EXPECT(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), CL_SUCCESS);
        int k = 7;
        size_t n = N;
        EXPECT(set_devptr(scale, 0, addr), CL_SUCCESS);
        EXPECT(clSetKernelArg(scale, 1, sizeof k, &k), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), CL_SUCCESS);
        bad = 0;
        for (int i = 0; i < N; i++) bad += host[i] != 3 * i * 7 + i;
        CHECK(bad == 0, "scale through a device pointer: %d wrong", bad);

        /* Linked lists in a buffer with a device address: next pointers computed on the host
         * from the queried address; 64 lists, list j has j + 1 nodes with values j * 1000 + m. */
        enum { LISTS = 64, NODES = LISTS * (LISTS + 1) / 2 };
        struct node {
            cl_long value;
            cl_ulong next;
        } *nodes = calloc(NODES, sizeof *nodes);
        cl_mem nb = bda_buffer(CL_MEM_READ_WRITE, NODES * sizeof *nodes, NULL, &err);
        cl_mem_device_address_ext base = address_of(nb);
        cl_ulong heads[LISTS];
        cl_long want[LISTS];
        int at = 0;
        for (int j = 0; j < LISTS; j++) {
            heads[j] = base + (cl_ulong)at * sizeof *nodes;
            want[j] = 0;
            for (int m = 0; m <= j; m++, at++) {
                nodes[at].value = j * 1000 + m;
                want[j] += nodes[at].value;
                nodes[at].next = m < j ? base + (cl_ulong)(at + 1) * sizeof *nodes : 0;
            }
        }
        EXPECT(clEnqueueWriteBuffer(q, nb, CL_TRUE, 0, NODES * sizeof *nodes, nodes, 0, NULL, NULL), CL_SUCCESS);
        cl_mem hb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof heads, heads, &err);
        cl_mem sb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof want, NULL, &err);
        cl_kernel walk = clCreateKernel(p, "walk", &err);
        EXPECT(clSetKernelArg(walk, 0, sizeof hb, &hb), CL_SUCCESS);
        EXPECT(clSetKernelArg(walk, 1, sizeof sb, &sb), CL_SUCCESS);
        EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, sizeof base, &base), CL_SUCCESS);
        size_t lists = LISTS;
        EXPECT(clEnqueueNDRangeKernel(q, walk, 1, NULL, &lists, NULL, 0, NULL, NULL), CL_SUCCESS);
        cl_long sums[LISTS];
        EXPECT(clEnqueueReadBuffer(q, sb, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL), CL_SUCCESS);
        bad = 0;
        for (int j = 0; j < LISTS; j++) bad += sums[j] != want[j];
        CHECK(bad == 0, "linked lists through device addresses: %d wrong (list 5: %lld, want %lld)", bad,
              (long long)sums[5], (long long)want[5]);
        free(nodes);
        clReleaseKernel(walk);
        clReleaseMemObject(nb);
        clReleaseMemObject(hb);
        clReleaseMemObject(sb);
        clReleaseMemObject(in_long);
        clReleaseMemObject(out_int);
        clReleaseMemObject(out);
    }
    clReleaseKernel(arith);
    clReleaseKernel(ind);
    clReleaseKernel(getaddr);
    clReleaseKernel(scale);
    clReleaseMemObject(sub);
    clReleaseMemObject(plain);
    clReleaseMemObject(b);
}

/* ---- coarse-grain buffer SVM ------------------------------------------------------------- */
static int freed_calls;
static void *freed_ptr;
static void CL_CALLBACK free_cb(cl_command_queue queue, cl_uint n, void **ptrs, void *data) {
    freed_calls++;
    freed_ptr = n == 1 ? ptrs[0] : NULL;
    CHECK(queue == q && data == (void *)&freed_calls, "free callback arguments");
    clSVMFree(ctx, ptrs[0]);
}

static void test_svm(cl_program p) {
    cl_int err;
    cl_device_svm_capabilities caps = 0;
    EXPECT(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL), CL_SUCCESS);
    CHECK(caps == CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, "SVM capabilities %#llx", (unsigned long long)caps);
    CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 0, 0) == NULL, "size 0");
    CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 3) == NULL, "alignment 3");
    CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0) == NULL, "two access flags");
    CHECK(clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0) == NULL, "no context");
    int *a = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * sizeof(int), 4096);
    int *b2 = clSVMAlloc(ctx, CL_MEM_READ_ONLY, N * sizeof(int), 0);
    CHECK(a && b2 && (uintptr_t)a % 4096 == 0 && (uintptr_t)b2 % 128 == 0, "clSVMAlloc %p %p", (void *)a, (void *)b2);
    if (!a || !b2) return;

    /* Fill, map, host access, unmap, copy back and forth. */
    cl_uint pattern = 0xA5A5F00Du;
    EXPECT(clEnqueueSVMMemFill(q, a, &pattern, sizeof pattern, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += (cl_uint)a[i] != pattern;
    CHECK(bad == 0, "fill seen through the map: %d wrong", bad);
    for (int i = 0; i < N; i++) a[i] = i * 3;
    EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);
    static int host[N];
    EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, b2, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, host, b2, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != i * 3;
    CHECK(bad == 0, "SVM -> SVM -> host copies: %d wrong", bad);
    for (int i = 0; i < N; i++) host[i] = -i;
    EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, a + 16, host, 32 * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    bad = 0;
    for (int i = 0; i < N; i++) bad += a[i] != (i >= 16 && i < 48 ? -(i - 16) : i * 3);
    CHECK(bad == 0, "host -> SVM copy at an offset: %d wrong", bad);
    EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);
    /* A 16-byte pattern at an offset. */
    cl_uint p16[4] = {1, 2, 3, 4};
    EXPECT(clEnqueueSVMMemFill(q, a + 4, p16, sizeof p16, 64, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, 64, 0, NULL, NULL), CL_SUCCESS);
    CHECK(a[3] == 9 && a[4] == 1 && a[7] == 4 && a[8] == 1 && a[19] == 4 && a[20] == -4,
          "16-byte fill: %d %d %d %d %d %d", a[3], a[4], a[7], a[8], a[19], a[20]);
    EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);

    /* Errors. */
    EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, a + 1, a, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueSVMMemcpy(q, CL_TRUE, NULL, a, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(q, a, &pattern, 3, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(q, (char *)a + 2, &pattern, 4, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMUnmap(q, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    const void *mig[2] = {a, b2};
    size_t migsz[2] = {64, 0};
    EXPECT(clEnqueueSVMMigrateMem(q, 2, mig, migsz, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
    const void *notsvm = host;
    EXPECT(clEnqueueSVMMigrateMem(q, 1, &notsvm, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMFree(q, 0, NULL, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMFree(q, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);

    /* A buffer on SVM memory uses it in place. */
    cl_mem onsvm = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, N * sizeof(int), a, &err);
    CHECK(err == CL_SUCCESS, "buffer on SVM: %d", err);
    cl_bool uses = CL_FALSE;
    EXPECT(clGetMemObjectInfo(onsvm, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, NULL), CL_SUCCESS);
    CHECK(uses == CL_TRUE, "CL_MEM_USES_SVM_POINTER");
    int v = 77;
    EXPECT(clEnqueueWriteBuffer(q, onsvm, CL_TRUE, 40 * sizeof(int), sizeof v, &v, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
    CHECK(a[40] == 77, "a buffer write lands in the SVM memory: %d", a[40]);
    EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);

    if (gpu) {
        /* A kernel through clSetKernelArgSVMPointer, at an offset; the host sees it after a map. */
        EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
        for (int i = 0; i < N; i++) a[i] = i;
        EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);
        cl_kernel scale = clCreateKernel(p, "scale", &err);
        int k = 5;
        size_t n = N - 8;
        EXPECT(clSetKernelArgSVMPointer(scale, 0, a + 8), CL_SUCCESS);
        EXPECT(clSetKernelArg(scale, 1, sizeof k, &k), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
        bad = 0;
        for (int i = 0; i < N; i++) bad += a[i] != (i < 8 ? i : i * 5 + (i - 8));
        CHECK(bad == 0, "kernel on SVM memory: %d wrong (a[9] = %d)", bad, a[9]);
        EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);
        /* The same memory through the buffer made on it. */
        EXPECT(clSetKernelArg(scale, 0, sizeof onsvm, &onsvm), CL_SUCCESS);
        n = N;
        k = 2;
        EXPECT(clSetKernelArg(scale, 1, sizeof k, &k), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a, N * sizeof(int), 0, NULL, NULL), CL_SUCCESS);
        bad = 0;
        for (int i = 0; i < N; i++) bad += a[i] != (i < 8 ? i : i * 5 + (i - 8)) * 2 + i;
        CHECK(bad == 0, "kernel on a buffer on SVM memory, seen through SVM: %d wrong", bad);
        EXPECT(clEnqueueSVMUnmap(q, a, 0, NULL, NULL), CL_SUCCESS);
        clReleaseKernel(scale);

        /* Linked lists of SVM nodes whose next pointers the host wrote: the same pointers work
         * on the device. */
        enum { LISTS = 32, NODES = LISTS * (LISTS + 1) / 2 };
        struct node {
            cl_long value;
            void *next;
        } *nodes = clSVMAlloc(ctx, CL_MEM_READ_WRITE, NODES * sizeof *nodes, 0);
        void **heads = clSVMAlloc(ctx, CL_MEM_READ_ONLY, LISTS * sizeof(void *), 0);
        cl_long *sums = clSVMAlloc(ctx, CL_MEM_READ_WRITE, LISTS * sizeof(cl_long), 0);
        CHECK(nodes && heads && sums, "SVM list allocations");
        if (nodes && heads && sums) {
            EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, nodes, NODES * sizeof *nodes, 0, NULL, NULL), CL_SUCCESS);
            EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, heads, LISTS * sizeof(void *), 0, NULL, NULL), CL_SUCCESS);
            cl_long want[LISTS];
            int at = 0;
            for (int j = 0; j < LISTS; j++) {
                heads[j] = &nodes[at];
                want[j] = 0;
                for (int m = 0; m <= j; m++, at++) {
                    nodes[at].value = 7 * j + m * m;
                    want[j] += nodes[at].value;
                    nodes[at].next = m < j ? &nodes[at + 1] : NULL;
                }
            }
            EXPECT(clEnqueueSVMUnmap(q, nodes, 0, NULL, NULL), CL_SUCCESS);
            EXPECT(clEnqueueSVMUnmap(q, heads, 0, NULL, NULL), CL_SUCCESS);
            cl_kernel walk = clCreateKernel(p, "walk", &err);
            EXPECT(clSetKernelArgSVMPointer(walk, 0, heads), CL_SUCCESS);
            EXPECT(clSetKernelArgSVMPointer(walk, 1, sums), CL_SUCCESS);
            EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof nodes, &nodes), CL_SUCCESS);
            size_t lists = LISTS;
            EXPECT(clEnqueueNDRangeKernel(q, walk, 1, NULL, &lists, NULL, 0, NULL, NULL), CL_SUCCESS);
            EXPECT(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, sums, LISTS * sizeof(cl_long), 0, NULL, NULL), CL_SUCCESS);
            bad = 0;
            for (int j = 0; j < LISTS; j++) bad += sums[j] != want[j];
            CHECK(bad == 0, "SVM linked lists: %d wrong (list 3: %lld, want %lld)", bad, (long long)sums[3],
                  (long long)want[3]);
            EXPECT(clEnqueueSVMUnmap(q, sums, 0, NULL, NULL), CL_SUCCESS);
            clReleaseKernel(walk);
        }
        EXPECT(clFinish(q), CL_SUCCESS);
        clSVMFree(ctx, nodes);
        clSVMFree(ctx, heads);
        clSVMFree(ctx, sums);
    }
    clReleaseMemObject(onsvm);

    /* clEnqueueSVMFree: the callback, after the commands before it; without one, freed. */
    freed_calls = 0;
    EXPECT(clEnqueueSVMFree(q, 1, (void **)&b2, free_cb, &freed_calls, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    CHECK(freed_calls == 1 && freed_ptr == b2, "free callback: %d calls", freed_calls);
    void *list[1] = {a};
    EXPECT(clEnqueueSVMFree(q, 1, list, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    /* The freed memory is no longer SVM: a kernel argument naming it is refused. */
    cl_kernel scale = clCreateKernel(p, "scale", &err);
    EXPECT(clSetKernelArgSVMPointer(scale, 0, a), CL_INVALID_ARG_VALUE);
    clReleaseKernel(scale);
}

int main(int argc, char **argv) {
    gpu = argc > 1 && !strcmp(argv[1], "gpu");
    plat = find_platform();
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
    CHECK(strstr(ext, "cl_ext_buffer_device_address") != NULL, "cl_ext_buffer_device_address");
    size_t sz = 0;
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &sz);
    cl_name_version *v = malloc(sz ? sz : 1);
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, sz, v, NULL);
    cl_version ver = 0;
    for (size_t i = 0; i < sz / sizeof *v; i++)
        if (!strcmp(v[i].name, "cl_ext_buffer_device_address")) ver = v[i].version;
    free(v);
    CHECK(ver == CL_MAKE_VERSION(1, 0, 2), "cl_ext_buffer_device_address version %#x", ver);
    set_devptr = (clSetKernelArgDevicePointerEXT_fn)clGetExtensionFunctionAddressForPlatform(
        plat, "clSetKernelArgDevicePointerEXT");
    CHECK(set_devptr != NULL, "clSetKernelArgDevicePointerEXT");
    cl_program p = build(SRC);
    if (set_devptr) test_bda(p);
    test_svm(p);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    int rc = report(gpu ? "devptr gpu" : "devptr");
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
}
