/* Images and samplers through the OpenCL API (host side): device limits, supported formats,
 * clCreateImage's rules and error codes, clGetImageInfo / clGetMemObjectInfo, write/read round
 * trips for every supported format and image type with odd origins and host pitches, image <->
 * image <-> buffer copies, fills (checked against the spec's conversion computed here), map/unmap,
 * USE/COPY/ALLOC_HOST_PTR, samplers, image and sampler kernel arguments, and multi-device contexts
 * when there are several GPUs.
 *
 * Runs on cudacl by default, or on the platform named by $CL_PLATFORM_NAME (e.g. "NVIDIA"), so
 * it checks the specification rather than cudacl. Under tests/fakecuda (a fake CUDA driver, not a
 * GPU) it also checks the descriptor a kernel receives and that every CUDA array is destroyed.
 * IMAGES_ONLY=a,b runs only the named sections.
 */
#include "common.h"
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include "fakecuda_hooks.h"

static cl_platform_id platform;
static cl_device_id device;
static cl_context ctx;
static cl_command_queue q;
static int on_cudacl;
static void (*fake_stats)(struct fakecuda_stats *);
static int (*fake_last_launch)(struct fakecuda_launch *);

static void find_fake_driver(void) {
    const char *names[] = {"libcuda.so", "libcuda.so.1"};
    for (int i = 0; i < 2 && !fake_stats; i++) {
        void *h = dlopen(names[i], RTLD_NOLOAD | RTLD_NOW);
        if (h) {
            fake_stats = (void (*)(struct fakecuda_stats *))dlsym(h, "fakecuda_stats");
            fake_last_launch = (int (*)(struct fakecuda_launch *))dlsym(h, "fakecuda_last_launch");
        }
    }
}

static int wanted(const char *name) {
    const char *only = getenv("IMAGES_ONLY");
    if (!only || !*only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

/* ------------------------------------------------------------------ formats and shapes */

static size_t channels_of(cl_channel_order o) {
    switch (o) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_Rx: return 1;
    case CL_RG: case CL_RA: case CL_RGx: return 2;
    case CL_RGB: case CL_RGBx: return 3;
    default: return 4;
    }
}

static size_t channel_bytes(cl_channel_type t) {
    switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: case CL_HALF_FLOAT: return 2;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 0;
    default: return 4;
    }
}

static size_t elem_size(cl_image_format f) {
    size_t b = channel_bytes(f.image_channel_data_type);
    if (b == 0) return 2;
    if (f.image_channel_data_type == CL_UNORM_INT_101010) return 4;
    return b * channels_of(f.image_channel_order);
}

static const char *type_name(cl_mem_object_type t) {
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D: return "1d";
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return "1d_array";
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return "1d_buffer";
    case CL_MEM_OBJECT_IMAGE2D: return "2d";
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return "2d_array";
    default: return "3d";
    }
}

static const cl_mem_object_type TYPES[6] = {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE1D_BUFFER,
                                            CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};

/* An image's extent in origin/region terms: (w, layers, 1) for 1-D arrays, (w, h, layers)
 * for 2-D arrays. */
struct shape {
    cl_mem_object_type type;
    size_t ext[3];
};

static struct shape shape_of(cl_mem_object_type t, size_t w, size_t h, size_t d) {
    struct shape s = {t, {w, 1, 1}};
    if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY) s.ext[1] = h;
    if (t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D) s.ext[1] = h;
    if (t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D) s.ext[2] = d;
    return s;
}

static cl_image_desc desc_of(struct shape s, cl_mem buffer) {
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = s.type;
    d.image_width = s.ext[0];
    switch (s.type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: d.image_array_size = s.ext[1]; break;
    case CL_MEM_OBJECT_IMAGE2D: d.image_height = s.ext[1]; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: d.image_height = s.ext[1]; d.image_array_size = s.ext[2]; break;
    case CL_MEM_OBJECT_IMAGE3D: d.image_height = s.ext[1]; d.image_depth = s.ext[2]; break;
    default: break;
    }
    d.buffer = buffer;
    return d;
}

/* A host layout's byte offset of a pixel: a 1-D array's layers are `slice` apart. */
static size_t host_off(struct shape s, size_t e, size_t row, size_t slice, size_t x, size_t y, size_t z) {
    if (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return x * e + y * slice;
    return x * e + y * row + z * slice;
}

static size_t tight_bytes(struct shape s, size_t e) { return s.ext[0] * s.ext[1] * s.ext[2] * e; }

/* An image of that shape and format (with its backing buffer for 1d_buffer, returned in *buf). */
static cl_mem make_image(struct shape s, cl_image_format f, cl_mem_flags flags, void *host, cl_mem *buf, cl_int *err) {
    cl_mem b = NULL;
    if (s.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, s.ext[0] * elem_size(f), NULL, err);
        if (!b) return NULL;
    }
    cl_image_desc d = desc_of(s, b);
    cl_mem m = clCreateImage(ctx, flags, &f, &d, host, err);
    if (buf) *buf = b;
    else if (b) clReleaseMemObject(b);
    return m;
}

static void fill_bytes(unsigned char *p, size_t n, unsigned seed) {
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (unsigned char)(x >> 16);
    }
}

static int supported(cl_mem_object_type t, cl_image_format f) {
    cl_uint n = 0;
    clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, t, 0, NULL, &n);
    cl_image_format *fs = calloc(n ? n : 1, sizeof *fs);
    clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, t, n, fs, NULL);
    int found = 0;
    for (cl_uint i = 0; i < n; i++)
        if (fs[i].image_channel_order == f.image_channel_order && fs[i].image_channel_data_type == f.image_channel_data_type) found = 1;
    free(fs);
    return found;
}

/* ------------------------------------------------------------------ device info and formats */

static void test_device_info(void) {
    cl_bool img = CL_FALSE;
    EXPECT(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof img, &img, NULL), CL_SUCCESS);
    CHECK(img == CL_TRUE, "CL_DEVICE_IMAGE_SUPPORT");
    struct { cl_device_info p; size_t min; const char *name; } lim[] = {
        {CL_DEVICE_IMAGE2D_MAX_WIDTH, 8192, "IMAGE2D_MAX_WIDTH"},   {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 8192, "IMAGE2D_MAX_HEIGHT"},
        {CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048, "IMAGE3D_MAX_WIDTH"},   {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 2048, "IMAGE3D_MAX_HEIGHT"},
        {CL_DEVICE_IMAGE3D_MAX_DEPTH, 2048, "IMAGE3D_MAX_DEPTH"},   {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536, "IMAGE_MAX_BUFFER_SIZE"},
        {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048, "IMAGE_MAX_ARRAY_SIZE"},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        size_t v = 0;
        EXPECT(clGetDeviceInfo(device, lim[i].p, sizeof v, &v, NULL), CL_SUCCESS);
        CHECK(v >= lim[i].min, "%s = %zu, the spec's minimum is %zu", lim[i].name, v, lim[i].min);
        printf("  %s = %zu\n", lim[i].name, v);
    }
    struct { cl_device_info p; cl_uint min; const char *name; } cnt[] = {
        {CL_DEVICE_MAX_READ_IMAGE_ARGS, 128, "MAX_READ_IMAGE_ARGS"},
        {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 8, "MAX_WRITE_IMAGE_ARGS"},
        {CL_DEVICE_MAX_SAMPLERS, 16, "MAX_SAMPLERS"},
    };
    for (size_t i = 0; i < 3; i++) {
        cl_uint v = 0;
        EXPECT(clGetDeviceInfo(device, cnt[i].p, sizeof v, &v, NULL), CL_SUCCESS);
        CHECK(v >= cnt[i].min, "%s = %u, the spec's minimum is %u", cnt[i].name, v, cnt[i].min);
    }
    if (on_cudacl) {
        char ext[4096] = {0};
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
        CHECK(strstr(ext, "cl_khr_3d_image_writes") != NULL, "cl_khr_3d_image_writes in %s", ext);
    }
}

static void test_formats(void) {
    /* The formats OpenCL 1.2 requires of every device with images (table 5.8). */
    cl_image_format required[] = {
        {CL_RGBA, CL_UNORM_INT8},    {CL_RGBA, CL_UNORM_INT16},    {CL_RGBA, CL_SIGNED_INT8},  {CL_RGBA, CL_SIGNED_INT16},
        {CL_RGBA, CL_SIGNED_INT32},  {CL_RGBA, CL_UNSIGNED_INT8},  {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32},
        {CL_RGBA, CL_HALF_FLOAT},    {CL_RGBA, CL_FLOAT},          {CL_BGRA, CL_UNORM_INT8},
    };
    for (int t = 0; t < 6; t++) {
        cl_uint n = 0;
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], 0, NULL, &n), CL_SUCCESS);
        CHECK(n >= 11, "%s: %u formats", type_name(TYPES[t]), n);
        for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
            CHECK(supported(TYPES[t], required[i]), "%s lacks required format %#x/%#x", type_name(TYPES[t]),
                  required[i].image_channel_order, required[i].image_channel_data_type);
        /* Fewer entries than formats: the first ones, and the full count. */
        cl_image_format two[2];
        cl_uint total = 0;
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], 2, two, &total), CL_SUCCESS);
        CHECK(total == n, "count %u vs %u", total, n);
        cl_uint nw = 0;
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_WRITE_ONLY, TYPES[t], 0, NULL, &nw), CL_SUCCESS);
        CHECK(nw > 0, "write-only formats");
    }
}

/* ------------------------------------------------------------------ creation rules */

static void expect_create(cl_int want, cl_mem_flags flags, const cl_image_format *f, const cl_image_desc *d, void *host, int line) {
    cl_int err = 12345;
    cl_mem m = clCreateImage(ctx, flags, f, d, host, &err);
    CHECK(err == want && (want == CL_SUCCESS) == (m != NULL), "line %d: clCreateImage gave %d, want %d", line, err, want);
    if (m) clReleaseMemObject(m);
}
#define EXPECT_CREATE(want, flags, f, d, host) expect_create(want, flags, f, d, host, __LINE__)

static void test_create_errors(void) {
    cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc d = desc_of(shape_of(CL_MEM_OBJECT_IMAGE2D, 16, 8, 1), NULL);
    unsigned char host[16 * 8 * 4 * 2];
    cl_int err;
    EXPECT_CREATE(CL_SUCCESS, CL_MEM_READ_WRITE, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_SUCCESS, 0, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_INVALID_VALUE, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_INVALID_VALUE, (cl_mem_flags)1 << 40, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, 0, NULL, &d, NULL);
    cl_image_format bad_order = {0x1234, CL_UNORM_INT8}, bad_type = {CL_RGBA, 0x1234};
    EXPECT_CREATE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, 0, &bad_order, &d, NULL);
    EXPECT_CREATE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, 0, &bad_type, &d, NULL);
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, 0, &rgba8, NULL, NULL);
    cl_image_desc bad = d;
    bad.image_type = CL_MEM_OBJECT_BUFFER;
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, 0, &rgba8, &bad, NULL);
    bad = d;
    bad.num_mip_levels = 2;
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, 0, &rgba8, &bad, NULL);
    bad = d;
    bad.image_row_pitch = 64; /* a pitch without a host pointer */
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, 0, &rgba8, &bad, NULL);
    bad = d;
    bad.image_row_pitch = 60; /* less than 16 x 4 bytes */
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host);
    bad.image_row_pitch = 66; /* not whole pixels */
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host);
    bad.image_row_pitch = 68;
    EXPECT_CREATE(CL_SUCCESS, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host);
    bad = d;
    bad.image_width = 0;
    {
        cl_mem m = clCreateImage(ctx, 0, &rgba8, &bad, NULL, &err);
        CHECK(!m && (err == CL_INVALID_IMAGE_DESCRIPTOR || err == CL_INVALID_IMAGE_SIZE), "width 0: %d", err);
    }
    size_t max_w = 0;
    clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof max_w, &max_w, NULL);
    bad = d;
    bad.image_width = max_w + 1;
    EXPECT_CREATE(CL_INVALID_IMAGE_SIZE, 0, &rgba8, &bad, NULL);
    size_t max_layers = 0;
    clGetDeviceInfo(device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof max_layers, &max_layers, NULL);
    bad = desc_of(shape_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, max_layers + 1), NULL);
    EXPECT_CREATE(CL_INVALID_IMAGE_SIZE, 0, &rgba8, &bad, NULL);
    EXPECT_CREATE(CL_INVALID_HOST_PTR, CL_MEM_USE_HOST_PTR, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_INVALID_HOST_PTR, CL_MEM_COPY_HOST_PTR, &rgba8, &d, NULL);
    EXPECT_CREATE(CL_INVALID_HOST_PTR, CL_MEM_READ_WRITE, &rgba8, &d, host);
    if (on_cudacl) {
        /* Valid but not offered: packed formats. */
        cl_image_format packed = {CL_RGB, CL_UNORM_SHORT_565};
        EXPECT_CREATE(CL_IMAGE_FORMAT_NOT_SUPPORTED, 0, &packed, &d, NULL);
        cl_image_format rgb8 = {CL_RGB, CL_UNORM_INT8}; /* RGB goes with packed types only */
        EXPECT_CREATE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, 0, &rgb8, &d, NULL);
    }
    /* image1d_buffer: needs a buffer, large enough. */
    cl_image_desc b1 = desc_of(shape_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, 1, 1), NULL);
    EXPECT_CREATE(CL_INVALID_IMAGE_DESCRIPTOR, 0, &rgba8, &b1, NULL);
    cl_mem small = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 128, NULL, &err);
    b1.buffer = small;
    EXPECT_CREATE(CL_INVALID_IMAGE_SIZE, 0, &rgba8, &b1, NULL);
    b1.image_width = 32;
    EXPECT_CREATE(CL_SUCCESS, 0, &rgba8, &b1, NULL);
    b1.image_row_pitch = 128; /* with a buffer, no host pointer: as the CTS's kernel_image_methods does */
    EXPECT_CREATE(CL_SUCCESS, 0, &rgba8, &b1, NULL);
    b1.image_row_pitch = 0;
    /* A buffer where an image belongs and the other way round. */
    cl_mem im = clCreateImage(ctx, 0, &rgba8, &d, NULL, &err);
    size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
    EXPECT(clEnqueueReadImage(q, small, CL_TRUE, o, r, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadBuffer(q, im, CL_TRUE, 0, 4, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    size_t sz;
    EXPECT(clGetImageInfo(small, CL_IMAGE_WIDTH, sizeof sz, &sz, NULL), CL_INVALID_MEM_OBJECT);
    size_t r_out[3] = {17, 1, 1};
    EXPECT(clEnqueueReadImage(q, im, CL_TRUE, o, r_out, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t r_zero[3] = {1, 0, 1};
    EXPECT(clEnqueueReadImage(q, im, CL_TRUE, o, r_zero, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    clReleaseMemObject(im);
    clReleaseMemObject(small);
    /* The 1.1 forms. */
    cl_mem m2 = clCreateImage2D(ctx, CL_MEM_READ_ONLY, &rgba8, 16, 8, 0, NULL, &err);
    CHECK(m2 && err == CL_SUCCESS, "clCreateImage2D: %d", err);
    if (m2) clReleaseMemObject(m2);
    cl_mem m3 = clCreateImage3D(ctx, CL_MEM_READ_ONLY, &rgba8, 8, 4, 3, 0, 0, NULL, &err);
    CHECK(m3 && err == CL_SUCCESS, "clCreateImage3D: %d", err);
    if (m3) clReleaseMemObject(m3);
}

/* ------------------------------------------------------------------ info */

static int destructor_calls;
static void CL_CALLBACK on_destroy(cl_mem m, void *data) {
    (void)m;
    (void)data;
    destructor_calls++;
}

static void test_info(void) {
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT16};
    size_t e = 8;
    size_t dims[6][3] = {{37, 1, 1}, {19, 5, 1}, {41, 1, 1}, {23, 17, 1}, {13, 11, 4}, {9, 7, 5}};
    for (int t = 0; t < 6; t++) {
        struct shape s = shape_of(TYPES[t], dims[t][0], dims[t][1], dims[t][2]);
        cl_int err;
        cl_mem buf = NULL;
        cl_mem m = make_image(s, f, CL_MEM_READ_WRITE, NULL, &buf, &err);
        CHECK(m != NULL, "%s: %d", type_name(TYPES[t]), err);
        if (!m) continue;
        cl_image_format got;
        size_t v[8];
        EXPECT(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof got, &got, NULL), CL_SUCCESS);
        CHECK(got.image_channel_order == f.image_channel_order && got.image_channel_data_type == f.image_channel_data_type, "format");
        cl_image_info ps[] = {CL_IMAGE_ELEMENT_SIZE, CL_IMAGE_ROW_PITCH, CL_IMAGE_SLICE_PITCH, CL_IMAGE_WIDTH,
                              CL_IMAGE_HEIGHT, CL_IMAGE_DEPTH, CL_IMAGE_ARRAY_SIZE};
        for (int i = 0; i < 7; i++) EXPECT(clGetImageInfo(m, ps[i], sizeof(size_t), &v[i], NULL), CL_SUCCESS);
        int two_d = TYPES[t] == CL_MEM_OBJECT_IMAGE2D || TYPES[t] == CL_MEM_OBJECT_IMAGE2D_ARRAY || TYPES[t] == CL_MEM_OBJECT_IMAGE3D;
        int arr = TYPES[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY || TYPES[t] == CL_MEM_OBJECT_IMAGE2D_ARRAY;
        CHECK(v[0] == e, "%s element size %zu", type_name(TYPES[t]), v[0]);
        CHECK(v[1] >= dims[t][0] * e, "%s row pitch %zu", type_name(TYPES[t]), v[1]);
        CHECK(v[3] == dims[t][0], "%s width %zu", type_name(TYPES[t]), v[3]);
        CHECK(v[4] == (two_d ? dims[t][1] : 0), "%s height %zu", type_name(TYPES[t]), v[4]);
        CHECK(v[5] == (TYPES[t] == CL_MEM_OBJECT_IMAGE3D ? dims[t][2] : 0), "%s depth %zu", type_name(TYPES[t]), v[5]);
        size_t layers = TYPES[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? dims[t][1] : dims[t][2];
        CHECK(v[6] == (arr ? layers : 0), "%s array size %zu", type_name(TYPES[t]), v[6]);
        if (TYPES[t] == CL_MEM_OBJECT_IMAGE2D_ARRAY || TYPES[t] == CL_MEM_OBJECT_IMAGE3D)
            CHECK(v[2] >= v[1] * dims[t][1], "%s slice pitch %zu", type_name(TYPES[t]), v[2]);
        if (TYPES[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY) CHECK(v[2] >= v[1], "1d_array slice pitch %zu", v[2]);
        cl_mem_object_type mt = 0;
        EXPECT(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof mt, &mt, NULL), CL_SUCCESS);
        CHECK(mt == TYPES[t], "CL_MEM_TYPE %#x", mt);
        size_t size = 0;
        EXPECT(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL), CL_SUCCESS);
        CHECK(size >= tight_bytes(s, e), "%s CL_MEM_SIZE %zu", type_name(TYPES[t]), size);
        cl_context c = NULL;
        EXPECT(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL), CL_SUCCESS);
        CHECK(c == ctx, "context");
        cl_mem b = (cl_mem)1;
        EXPECT(clGetImageInfo(m, CL_IMAGE_BUFFER, sizeof b, &b, NULL), CL_SUCCESS);
        CHECK(b == buf, "%s CL_IMAGE_BUFFER", type_name(TYPES[t]));
        if (buf) {
            cl_mem assoc = NULL;
            EXPECT(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL), CL_SUCCESS);
            CHECK(assoc == buf, "1d_buffer CL_MEM_ASSOCIATED_MEMOBJECT");
        }
        cl_uint refs = 0;
        EXPECT(clRetainMemObject(m), CL_SUCCESS);
        EXPECT(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
        CHECK(refs == 2, "refs %u", refs);
        EXPECT(clReleaseMemObject(m), CL_SUCCESS);
        destructor_calls = 0;
        EXPECT(clSetMemObjectDestructorCallback(m, on_destroy, NULL), CL_SUCCESS);
        EXPECT(clReleaseMemObject(m), CL_SUCCESS);
        clFinish(q);
        /* The spec does not say when the callback runs after the last release: cudacl runs it
         * at once, others may later (never twice). */
        CHECK(on_cudacl ? destructor_calls == 1 : destructor_calls <= 1, "%s destructor called %d times", type_name(TYPES[t]),
              destructor_calls);
        if (buf) clReleaseMemObject(buf);
    }
    /* USE_HOST_PTR: CL_MEM_HOST_PTR and the given pitch. */
    size_t w = 10, h = 6, pitch = 10 * 8 + 24;
    unsigned char *host = malloc(pitch * h);
    cl_int err;
    cl_image_desc d = desc_of(shape_of(CL_MEM_OBJECT_IMAGE2D, w, h, 1), NULL);
    d.image_row_pitch = pitch;
    cl_mem m = clCreateImage(ctx, CL_MEM_USE_HOST_PTR, &f, &d, host, &err);
    CHECK(m != NULL, "USE_HOST_PTR image: %d", err);
    if (m) {
        void *hp = NULL;
        size_t rp = 0;
        EXPECT(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL), CL_SUCCESS);
        CHECK(hp == host, "CL_MEM_HOST_PTR");
        EXPECT(clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof rp, &rp, NULL), CL_SUCCESS);
        CHECK(rp == pitch, "row pitch %zu, want %zu", rp, pitch);
        clReleaseMemObject(m);
    }
    free(host);
}

/* ------------------------------------------------------------------ round trips */

/* Writes the whole image, then a sub-region at an odd origin from host memory with padded
 * pitches, reads a region with other pitches, and compares everything with a host model. */
static void round_trip(struct shape s, cl_image_format f, unsigned seed) {
    size_t e = elem_size(f);
    cl_int err;
    cl_mem buf = NULL;
    cl_mem m = make_image(s, f, CL_MEM_READ_WRITE, NULL, &buf, &err);
    CHECK(m != NULL, "%s %#x/%#x: create %d", type_name(s.type), f.image_channel_order, f.image_channel_data_type, err);
    if (!m) return;
    size_t n = tight_bytes(s, e);
    unsigned char *model = malloc(n), *back = malloc(n);
    fill_bytes(model, n, seed);
    size_t o0[3] = {0, 0, 0};
    EXPECT(clEnqueueWriteImage(q, m, CL_TRUE, o0, s.ext, 0, 0, model, 0, NULL, NULL), CL_SUCCESS);
    memset(back, 0, n);
    EXPECT(clEnqueueReadImage(q, m, CL_TRUE, o0, s.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(model, back, n), "%s %#x/%#x: whole image round trip", type_name(s.type), f.image_channel_order,
          f.image_channel_data_type);
    /* A sub-region: origin 1 where the image has room, region up to 3 less. */
    size_t org[3], reg[3];
    for (int d = 0; d < 3; d++) {
        org[d] = s.ext[d] > 2 ? 1 : 0;
        reg[d] = s.ext[d] > 3 ? s.ext[d] - 3 : s.ext[d] - org[d];
    }
    int layered = s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE3D;
    int has_rows = s.type != CL_MEM_OBJECT_IMAGE1D && s.type != CL_MEM_OBJECT_IMAGE1D_BUFFER;
    size_t rp = has_rows ? reg[0] * e + 3 * e : 0;
    size_t rows = s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : reg[1];
    size_t sp = layered ? (rp ? rp : reg[0] * e) * rows + 5 * e : 0;
    size_t rp_eff = rp ? rp : reg[0] * e, sp_eff = sp ? sp : rp_eff * rows;
    size_t hn = sp_eff * (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? reg[1] : reg[2]) + rp_eff * reg[1] + 64;
    unsigned char *src = malloc(hn), *dst = malloc(hn);
    fill_bytes(src, hn, seed + 77);
    EXPECT(clEnqueueWriteImage(q, m, CL_FALSE, org, reg, rp, sp, src, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    for (size_t z = 0; z < reg[2]; z++)
        for (size_t y = 0; y < reg[1]; y++)
            memcpy(model + host_off(s, e, s.ext[0] * e, s.ext[0] * e * (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : s.ext[1]),
                                    org[0], org[1] + y, org[2] + z),
                   src + host_off(s, e, rp_eff, sp_eff, 0, y, z), reg[0] * e);
    /* Read the same region back with other pitches (one more pixel of padding). */
    size_t rp2 = has_rows ? reg[0] * e + e : 0, sp2 = layered ? (rp2 ? rp2 : reg[0] * e) * rows + e : 0;
    size_t rp2_eff = rp2 ? rp2 : reg[0] * e, sp2_eff = sp2 ? sp2 : rp2_eff * rows;
    memset(dst, 0, hn);
    cl_event ev = NULL;
    EXPECT(clEnqueueReadImage(q, m, CL_FALSE, org, reg, rp2, sp2, dst, 0, NULL, &ev), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_command_type ct = 0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL);
    CHECK(ct == CL_COMMAND_READ_IMAGE, "event command type %#x", ct);
    clReleaseEvent(ev);
    int ok = 1;
    for (size_t z = 0; z < reg[2] && ok; z++)
        for (size_t y = 0; y < reg[1] && ok; y++)
            ok = !memcmp(dst + host_off(s, e, rp2_eff, sp2_eff, 0, y, z), src + host_off(s, e, rp_eff, sp_eff, 0, y, z), reg[0] * e);
    CHECK(ok, "%s %#x/%#x: sub-region round trip", type_name(s.type), f.image_channel_order, f.image_channel_data_type);
    EXPECT(clEnqueueReadImage(q, m, CL_TRUE, o0, s.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(model, back, n), "%s %#x/%#x: the rest of the image unchanged", type_name(s.type), f.image_channel_order,
          f.image_channel_data_type);
    free(src);
    free(dst);
    free(model);
    free(back);
    clReleaseMemObject(m);
    if (buf) clReleaseMemObject(buf);
}

static void test_round_trips(void) {
    size_t dims[6][3] = {{37, 1, 1}, {19, 5, 1}, {41, 1, 1}, {23, 17, 1}, {13, 11, 4}, {9, 7, 5}};
    int tested = 0;
    for (int t = 0; t < 6; t++) {
        cl_uint n = 0;
        clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], 0, NULL, &n);
        cl_image_format *fs = calloc(n ? n : 1, sizeof *fs);
        clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], n, fs, NULL);
        for (cl_uint i = 0; i < n; i++) {
            if (channel_bytes(fs[i].image_channel_data_type) == 0 || fs[i].image_channel_data_type == CL_UNORM_INT_101010) continue;
            if (channels_of(fs[i].image_channel_order) == 3) continue;
            round_trip(shape_of(TYPES[t], dims[t][0], dims[t][1], dims[t][2]), fs[i], t * 100 + i);
            tested++;
        }
        free(fs);
    }
    /* Large images (MiBs): with CUDACL_STAGING_MIN=1 and small staging chunks (tests/images.rs)
     * every transfer goes through cudacl's staging in many pieces, rows not adjacent in host
     * memory included (the padded pitches of the sub-region). */
    cl_image_format big[2] = {{CL_RGBA, CL_UNORM_INT8}, {CL_RGBA, CL_FLOAT}};
    size_t bdims[4][3] = {{700, 500, 1}, {300, 200, 9}, {150, 130, 20}, {4000, 70, 1}};
    cl_mem_object_type btypes[4] = {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D,
                                    CL_MEM_OBJECT_IMAGE1D_ARRAY};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 2; i++) {
            if (!supported(btypes[t], big[i])) continue;
            round_trip(shape_of(btypes[t], bdims[t][0], bdims[t][1], bdims[t][2]), big[i], 900 + t * 2 + i);
            tested++;
        }
    printf("  round trips: %d image/format pairs\n", tested);
}

/* ------------------------------------------------------------------ copies */

static void read_whole(cl_mem m, struct shape s, void *dst) {
    size_t o[3] = {0, 0, 0};
    EXPECT(clEnqueueReadImage(q, m, CL_TRUE, o, s.ext, 0, 0, dst, 0, NULL, NULL), CL_SUCCESS);
}

static void write_whole(cl_mem m, struct shape s, const void *src) {
    size_t o[3] = {0, 0, 0};
    EXPECT(clEnqueueWriteImage(q, m, CL_TRUE, o, s.ext, 0, 0, src, 0, NULL, NULL), CL_SUCCESS);
}

/* The model's byte offset of a pixel (tight). */
static size_t model_off(struct shape s, size_t e, size_t x, size_t y, size_t z) {
    return ((z * s.ext[1] + y) * s.ext[0] + x) * e;
}

/* Copies `reg` from a at ao to b at bo in the models. */
static void model_copy(unsigned char *mb, struct shape sb, const size_t *bo, const unsigned char *ma, struct shape sa,
                       const size_t *ao, const size_t *reg, size_t e) {
    for (size_t z = 0; z < reg[2]; z++)
        for (size_t y = 0; y < reg[1]; y++)
            memcpy(mb + model_off(sb, e, bo[0], bo[1] + y, bo[2] + z), ma + model_off(sa, e, ao[0], ao[1] + y, ao[2] + z), reg[0] * e);
}

static void test_copies(void) {
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
    size_t e = 4;
    cl_int err;
    struct shape s2 = shape_of(CL_MEM_OBJECT_IMAGE2D, 21, 13, 1), s3 = shape_of(CL_MEM_OBJECT_IMAGE3D, 11, 9, 6),
                 s2a = shape_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 12, 10, 3), s1a = shape_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, 17, 7, 1),
                 s1b = shape_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 30, 1, 1);
    struct shape ss[5] = {s2, s3, s2a, s1a, s1b};
    cl_mem m[5], b1 = NULL;
    unsigned char *model[5], *back = malloc(64 * 1024);
    for (int i = 0; i < 5; i++) {
        m[i] = make_image(ss[i], f, CL_MEM_READ_WRITE, NULL, i == 4 ? &b1 : NULL, &err);
        CHECK(m[i] != NULL, "copy image %d: %d", i, err);
        if (!m[i]) return;
        model[i] = malloc(tight_bytes(ss[i], e));
        fill_bytes(model[i], tight_bytes(ss[i], e), 500 + i);
        write_whole(m[i], ss[i], model[i]);
    }
    struct {
        int a, b;
        size_t ao[3], bo[3], reg[3];
    } cases[] = {
        {0, 1, {2, 3, 0}, {1, 2, 4}, {7, 5, 1}},   /* 2d -> slice of 3d */
        {1, 0, {3, 1, 2}, {9, 4, 0}, {6, 7, 1}},   /* 3d slice -> 2d */
        {1, 2, {0, 0, 1}, {1, 1, 0}, {8, 6, 3}},   /* 3d -> 2d array */
        {2, 2, {0, 0, 0}, {6, 0, 2}, {5, 4, 1}},   /* within one image, no overlap */
        {3, 0, {2, 1, 0}, {3, 6, 0}, {9, 5, 1}},   /* 1d array (layers) -> 2d (rows) */
        {0, 3, {4, 2, 0}, {1, 2, 0}, {12, 4, 1}},  /* 2d rows -> 1d array layers */
        {4, 0, {3, 0, 0}, {0, 12, 0}, {20, 1, 1}}, /* 1d buffer -> 2d */
        {0, 4, {1, 7, 0}, {5, 0, 0}, {18, 1, 1}},  /* 2d -> 1d buffer */
        {4, 4, {0, 0, 0}, {15, 0, 0}, {12, 1, 1}}, /* within a 1d buffer */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int a = cases[c].a, b = cases[c].b;
        EXPECT(clEnqueueCopyImage(q, m[a], m[b], cases[c].ao, cases[c].bo, cases[c].reg, 0, NULL, NULL), CL_SUCCESS);
        model_copy(model[b], ss[b], cases[c].bo, model[a], ss[a], cases[c].ao, cases[c].reg, e);
        read_whole(m[b], ss[b], back);
        size_t nb = tight_bytes(ss[b], e), bad = 0;
        while (bad < nb && back[bad] == model[b][bad]) bad++;
        CHECK(bad == nb, "copy case %zu (%s -> %s): first difference at pixel %zu", c, type_name(ss[a].type), type_name(ss[b].type),
              bad / e);
        if (bad != nb) memcpy(model[b], back, nb); /* report each case's own failure only */
    }
    size_t o0[3] = {0, 0, 0}, o1[3] = {2, 2, 0}, r4[3] = {4, 4, 1};
    EXPECT(clEnqueueCopyImage(q, m[0], m[0], o0, o1, r4, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    cl_image_format f2 = {CL_RGBA, CL_SIGNED_INT8};
    cl_mem other = make_image(s2, f2, CL_MEM_READ_WRITE, NULL, NULL, &err);
    EXPECT(clEnqueueCopyImage(q, m[0], other, o0, o0, r4, 0, NULL, NULL), CL_IMAGE_FORMAT_MISMATCH);
    clReleaseMemObject(other);
    size_t big[3] = {22, 1, 1};
    EXPECT(clEnqueueCopyImage(q, m[0], m[0], o0, o1, big, 0, NULL, NULL), CL_INVALID_VALUE);

    /* Image <-> buffer: tightly packed at an offset. */
    size_t bsize = 8192;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bsize, NULL, &err);
    unsigned char *bmodel = malloc(bsize), *bback = malloc(bsize);
    fill_bytes(bmodel, bsize, 900);
    EXPECT(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bsize, bmodel, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 5; i++) {
        size_t org[3] = {1, ss[i].ext[1] > 1 ? 1 : 0, ss[i].ext[2] > 1 ? 1 : 0};
        size_t reg[3] = {ss[i].ext[0] - 2, ss[i].ext[1] > 2 ? ss[i].ext[1] - 2 : 1, ss[i].ext[2] > 2 ? ss[i].ext[2] - 2 : 1};
        size_t off = 12 + 4 * i;
        EXPECT(clEnqueueCopyImageToBuffer(q, m[i], buf, org, reg, off, 0, NULL, NULL), CL_SUCCESS);
        size_t k = off;
        for (size_t z = 0; z < reg[2]; z++)
            for (size_t y = 0; y < reg[1]; y++, k += reg[0] * e)
                memcpy(bmodel + k, model[i] + model_off(ss[i], e, org[0], org[1] + y, org[2] + z), reg[0] * e);
        EXPECT(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, bsize, bback, 0, NULL, NULL), CL_SUCCESS);
        CHECK(!memcmp(bmodel, bback, bsize), "%s -> buffer", type_name(ss[i].type));
        /* And back into the image at another place, from another offset. */
        size_t org2[3] = {0, 0, 0}, off2 = 100 + 8 * i;
        EXPECT(clEnqueueCopyBufferToImage(q, buf, m[i], off2, org2, reg, 0, NULL, NULL), CL_SUCCESS);
        if (i == 4) { /* the 1d buffer image shares the buffer b1, not buf: the model is the image's */ }
        k = off2;
        for (size_t z = 0; z < reg[2]; z++)
            for (size_t y = 0; y < reg[1]; y++, k += reg[0] * e)
                memcpy(model[i] + model_off(ss[i], e, org2[0], org2[1] + y, org2[2] + z), bmodel + k, reg[0] * e);
        read_whole(m[i], ss[i], back);
        CHECK(!memcmp(back, model[i], tight_bytes(ss[i], e)), "buffer -> %s", type_name(ss[i].type));
    }
    size_t reg_all[3] = {21, 13, 1};
    EXPECT(clEnqueueCopyImageToBuffer(q, m[0], buf, o0, reg_all, bsize - 4, 0, NULL, NULL), CL_INVALID_VALUE);
    /* The image1d_buffer's pixels are its buffer's bytes. */
    EXPECT(clEnqueueReadBuffer(q, b1, CL_TRUE, 0, 30 * e, bback, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(bback, model[4], 30 * e), "1d_buffer pixels are the buffer's bytes");
    clReleaseMemObject(buf);
    free(bmodel);
    free(bback);
    for (int i = 0; i < 5; i++) {
        clReleaseMemObject(m[i]);
        free(model[i]);
    }
    clReleaseMemObject(b1);
    free(back);
}

/* ------------------------------------------------------------------ fill */

static uint16_t to_half(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    uint16_t sign = (b >> 16) & 0x8000;
    int exp = (int)((b >> 23) & 0xff) - 127 + 15;
    uint32_t man = b & 0x7fffff;
    if (((b >> 23) & 0xff) == 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
    if (exp >= 0x1f) return sign | 0x7c00;
    if (exp <= 0) {
        if (exp < -10) return sign;
        uint32_t m = man | 0x800000, shift = 14 - exp, half = m >> shift, rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        return sign | (half + (rem > mid || (rem == mid && (half & 1))));
    }
    uint32_t half = ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fff;
    return sign | (uint16_t)(half + (rem > 0x1000 || (rem == 0x1000 && (half & 1))));
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One channel of the spec's conversion (section 8.3): round to nearest even, saturate. */
static void put_channel(unsigned char *p, cl_channel_type t, float fv, int32_t iv) {
    int8_t c;
    int16_t s;
    uint16_t us;
    int32_t i;
    uint32_t u;
    switch (t) {
    case CL_UNORM_INT8: *p = (unsigned char)clampd(nearbyint(fv * 255.0), 0, 255); break;
    case CL_SNORM_INT8: c = (int8_t)clampd(nearbyint(fv * 127.0), -128, 127); memcpy(p, &c, 1); break;
    case CL_UNORM_INT16: us = (uint16_t)clampd(nearbyint(fv * 65535.0), 0, 65535); memcpy(p, &us, 2); break;
    case CL_SNORM_INT16: s = (int16_t)clampd(nearbyint(fv * 32767.0), -32768, 32767); memcpy(p, &s, 2); break;
    case CL_HALF_FLOAT: us = to_half(fv); memcpy(p, &us, 2); break;
    case CL_FLOAT: memcpy(p, &fv, 4); break;
    case CL_SIGNED_INT8: c = (int8_t)clampd(iv, -128, 127); memcpy(p, &c, 1); break;
    case CL_SIGNED_INT16: s = (int16_t)clampd(iv, -32768, 32767); memcpy(p, &s, 2); break;
    case CL_SIGNED_INT32: i = iv; memcpy(p, &i, 4); break;
    case CL_UNSIGNED_INT8: *p = (unsigned char)((uint32_t)iv > 255 ? 255 : (uint32_t)iv); break;
    case CL_UNSIGNED_INT16: us = (uint16_t)((uint32_t)iv > 65535 ? 65535 : (uint32_t)iv); memcpy(p, &us, 2); break;
    default: u = (uint32_t)iv; memcpy(p, &u, 4); break;
    }
}

/* The fill colour as a pixel's bytes, in the order's storage order. */
static void expected_pixel(cl_image_format f, const float *fc, const int32_t *ic, unsigned char *out) {
    int idx[4] = {0, 1, 2, 3}, n = 4;
    switch (f.image_channel_order) {
    case CL_R: case CL_INTENSITY: case CL_LUMINANCE: n = 1; break;
    case CL_A: n = 1; idx[0] = 3; break;
    case CL_RG: n = 2; break;
    case CL_RA: n = 2; idx[1] = 3; break;
    case CL_BGRA: idx[0] = 2; idx[2] = 0; break;
    case CL_ARGB: idx[0] = 3; idx[1] = 0; idx[2] = 1; idx[3] = 2; break;
    default: break;
    }
    size_t cb = channel_bytes(f.image_channel_data_type);
    for (int k = 0; k < n; k++) put_channel(out + k * cb, f.image_channel_data_type, fc[idx[k]], ic[idx[k]]);
}

static int is_norm(cl_channel_type t) {
    return t == CL_UNORM_INT8 || t == CL_SNORM_INT8 || t == CL_UNORM_INT16 || t == CL_SNORM_INT16;
}

/* Pixels equal, or for normalized types within one unit per channel (the spec allows the
 * conversion 0.6 ulp of error). */
static int pixel_close(cl_image_format f, const unsigned char *a, const unsigned char *b) {
    size_t e = elem_size(f), cb = channel_bytes(f.image_channel_data_type);
    if (!is_norm(f.image_channel_data_type)) return !memcmp(a, b, e);
    for (size_t k = 0; k < e / cb; k++) {
        long x, y;
        if (cb == 1) {
            x = f.image_channel_data_type == CL_SNORM_INT8 ? (long)(int8_t)a[k] : (long)a[k];
            y = f.image_channel_data_type == CL_SNORM_INT8 ? (long)(int8_t)b[k] : (long)b[k];
        } else {
            int16_t s1, s2;
            uint16_t u1, u2;
            memcpy(&s1, a + 2 * k, 2), memcpy(&s2, b + 2 * k, 2), memcpy(&u1, a + 2 * k, 2), memcpy(&u2, b + 2 * k, 2);
            x = f.image_channel_data_type == CL_SNORM_INT16 ? s1 : u1;
            y = f.image_channel_data_type == CL_SNORM_INT16 ? s2 : u2;
        }
        if (labs(x - y) > 1) return 0;
    }
    return 1;
}

static void test_fill(void) {
    float fcolor[4] = {0.2f, 1.5f, -1.0f, 0.6f};
    int32_t scolor[4] = {-300, 7, 70000, -2};
    uint32_t ucolor[4] = {300, 7, 70000, 2};
    int tested = 0;
    for (int t = 0; t < 6; t++) {
        cl_uint n = 0;
        clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], 0, NULL, &n);
        cl_image_format *fs = calloc(n ? n : 1, sizeof *fs);
        clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, TYPES[t], n, fs, NULL);
        size_t dims[6][3] = {{29, 1, 1}, {13, 4, 1}, {31, 1, 1}, {15, 9, 1}, {9, 7, 3}, {7, 6, 4}};
        for (cl_uint i = 0; i < n; i++) {
            cl_image_format f = fs[i];
            if (channel_bytes(f.image_channel_data_type) == 0 || f.image_channel_data_type == CL_UNORM_INT_101010 ||
                channels_of(f.image_channel_order) == 3)
                continue;
            /* Every format on 2-D images, the 4-channel formats on the others. */
            if (TYPES[t] != CL_MEM_OBJECT_IMAGE2D && f.image_channel_order != CL_RGBA) continue;
            struct shape s = shape_of(TYPES[t], dims[t][0], dims[t][1], dims[t][2]);
            size_t e = elem_size(f), nb = tight_bytes(s, e);
            cl_int err;
            cl_mem buf = NULL;
            cl_mem m = make_image(s, f, CL_MEM_READ_WRITE, NULL, &buf, &err);
            CHECK(m != NULL, "fill image: %d", err);
            if (!m) continue;
            unsigned char *model = malloc(nb), *back = malloc(nb), pix[16];
            fill_bytes(model, nb, 1000 + i);
            write_whole(m, s, model);
            const void *color = fcolor;
            int32_t icol[4];
            switch (f.image_channel_data_type) {
            case CL_SIGNED_INT8: case CL_SIGNED_INT16: case CL_SIGNED_INT32: color = scolor; memcpy(icol, scolor, 16); break;
            case CL_UNSIGNED_INT8: case CL_UNSIGNED_INT16: case CL_UNSIGNED_INT32: color = ucolor; memcpy(icol, ucolor, 16); break;
            default: memset(icol, 0, 16); break;
            }
            expected_pixel(f, fcolor, icol, pix);
            size_t org[3] = {1, s.ext[1] > 1 ? 1 : 0, s.ext[2] > 1 ? 1 : 0};
            size_t reg[3] = {s.ext[0] - 2, s.ext[1] > 2 ? s.ext[1] - 2 : 1, s.ext[2] > 2 ? s.ext[2] - 1 : 1};
            EXPECT(clEnqueueFillImage(q, m, color, org, reg, 0, NULL, NULL), CL_SUCCESS);
            read_whole(m, s, back);
            int ok = 1;
            for (size_t z = 0; z < s.ext[2]; z++)
                for (size_t y = 0; y < s.ext[1]; y++)
                    for (size_t x = 0; x < s.ext[0]; x++) {
                        size_t off = model_off(s, e, x, y, z);
                        int in = x >= org[0] && x < org[0] + reg[0] && y >= org[1] && y < org[1] + reg[1] && z >= org[2] && z < org[2] + reg[2];
                        int good = in ? pixel_close(f, back + off, pix) : !memcmp(back + off, model + off, e);
                        if (!good && ok) {
                            printf("  fill %s %#x/%#x: pixel (%zu,%zu,%zu) %s: got %02x %02x %02x %02x, want %02x %02x %02x %02x\n",
                                   type_name(s.type), f.image_channel_order, f.image_channel_data_type, x, y, z,
                                   in ? "inside" : "outside", back[off], back[off + 1 < nb ? off + 1 : off], back[off + 2 < nb ? off + 2 : off],
                                   back[off + 3 < nb ? off + 3 : off], in ? pix[0] : model[off], in ? pix[1] : model[off + 1 < nb ? off + 1 : off],
                                   in ? pix[2] : model[off + 2 < nb ? off + 2 : off], in ? pix[3] : model[off + 3 < nb ? off + 3 : off]);
                            ok = 0;
                        }
                    }
            CHECK(ok, "fill %s %#x/%#x", type_name(s.type), f.image_channel_order, f.image_channel_data_type);
            tested++;
            free(model);
            free(back);
            clReleaseMemObject(m);
            if (buf) clReleaseMemObject(buf);
        }
        free(fs);
    }
    printf("  fills: %d image/format pairs\n", tested);
    cl_image_format f = {CL_RGBA, CL_FLOAT};
    cl_int err;
    cl_mem m = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, 4, 4, 1), f, CL_MEM_READ_WRITE, NULL, NULL, &err);
    size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 1};
    EXPECT(clEnqueueFillImage(q, m, NULL, o, r, 0, NULL, NULL), CL_INVALID_VALUE);
    clReleaseMemObject(m);
}

/* ------------------------------------------------------------------ map / unmap */

static void test_map(void) {
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT16};
    size_t e = 8;
    cl_int err;
    for (int t = 0; t < 6; t++) {
        struct shape s = shape_of(TYPES[t], 14, 5, 4);
        cl_mem buf = NULL;
        cl_mem m = make_image(s, f, CL_MEM_READ_WRITE, NULL, &buf, &err);
        if (!m) {
            CHECK(0, "map image %s: %d", type_name(s.type), err);
            continue;
        }
        size_t nb = tight_bytes(s, e);
        unsigned char *model = malloc(nb), *back = malloc(nb);
        fill_bytes(model, nb, 2000 + t);
        write_whole(m, s, model);
        size_t org[3] = {2, s.ext[1] > 1 ? 1 : 0, s.ext[2] > 1 ? 1 : 0};
        size_t reg[3] = {9, s.ext[1] > 1 ? s.ext[1] - 2 : 1, s.ext[2] > 1 ? s.ext[2] - 2 : 1};
        size_t rp = 0, sp = 0;
        unsigned char *p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, org, reg, &rp, &sp, 0, NULL, NULL, &err);
        CHECK(p && err == CL_SUCCESS, "%s map: %d", type_name(s.type), err);
        if (!p) continue;
        CHECK(rp >= reg[0] * e, "%s map row pitch %zu", type_name(s.type), rp);
        int layered = s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY || s.type == CL_MEM_OBJECT_IMAGE3D;
        if (layered) CHECK(sp >= (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? rp : rp * reg[1]), "%s map slice pitch %zu", type_name(s.type), sp);
        cl_uint mc = 0;
        clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL);
        CHECK(mc == 1, "map count %u", mc);
        int ok = 1;
        for (size_t z = 0; z < reg[2]; z++)
            for (size_t y = 0; y < reg[1]; y++) {
                unsigned char *row = p + host_off(s, e, rp, sp, 0, y, z);
                if (memcmp(row, model + model_off(s, e, org[0], org[1] + y, org[2] + z), reg[0] * e)) ok = 0;
                /* Change the mapped pixels (in the model too). */
                for (size_t k = 0; k < reg[0] * e; k++) row[k] ^= 0x5a;
                memcpy(model + model_off(s, e, org[0], org[1] + y, org[2] + z), row, reg[0] * e);
            }
        CHECK(ok, "%s: mapped pixels", type_name(s.type));
        EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_INVALID_VALUE);
        EXPECT(clEnqueueMigrateMemObjects(q, 1, &m, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
        read_whole(m, s, back);
        CHECK(!memcmp(back, model, nb), "%s: written through the map", type_name(s.type));
        /* The whole image, write-invalidate: every pixel replaced. */
        size_t o0[3] = {0, 0, 0};
        p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, o0, s.ext, &rp, &sp, 0, NULL, NULL, &err);
        CHECK(p != NULL, "map whole: %d", err);
        if (p) {
            fill_bytes(model, nb, 3000 + t);
            for (size_t z = 0; z < s.ext[2]; z++)
                for (size_t y = 0; y < s.ext[1]; y++)
                    memcpy(p + host_off(s, e, rp, sp, 0, y, z), model + model_off(s, e, 0, y, z), s.ext[0] * e);
            EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
            read_whole(m, s, back);
            CHECK(!memcmp(back, model, nb), "%s: whole-image map", type_name(s.type));
        }
        if (layered) {
            p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ, o0, s.ext, &rp, NULL, 0, NULL, NULL, &err);
            CHECK(!p && err == CL_INVALID_VALUE, "%s: map without slice pitch: %d", type_name(s.type), err);
        }
        p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ, o0, s.ext, NULL, &sp, 0, NULL, NULL, &err);
        CHECK(!p && err == CL_INVALID_VALUE, "%s: map without row pitch: %d", type_name(s.type), err);
        free(model);
        free(back);
        clReleaseMemObject(m);
        if (buf) clReleaseMemObject(buf);
    }
}

/* ------------------------------------------------------------------ host pointer flags */

static void test_host_ptr_flags(void) {
    cl_image_format f = {CL_RG, CL_FLOAT};
    size_t e = 8, w = 11, h = 7, d = 3, rp = w * e + 40, sp = rp * (h + 1);
    struct shape s = shape_of(CL_MEM_OBJECT_IMAGE3D, w, h, d);
    unsigned char *host = malloc(sp * d), *back = malloc(w * h * d * e), *model = malloc(w * h * d * e);
    fill_bytes(host, sp * d, 4000);
    for (size_t z = 0; z < d; z++)
        for (size_t y = 0; y < h; y++) memcpy(model + model_off(s, e, 0, y, z), host + z * sp + y * rp, w * e);
    cl_mem_flags flags[] = {CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR};
    for (int i = 0; i < 3; i++) {
        cl_image_desc desc = desc_of(s, NULL);
        desc.image_row_pitch = rp;
        desc.image_slice_pitch = sp;
        cl_int err;
        cl_mem m = clCreateImage(ctx, flags[i] | CL_MEM_READ_WRITE, &f, &desc, host, &err);
        CHECK(m != NULL, "host flags %#llx: %d", (unsigned long long)flags[i], err);
        if (!m) continue;
        read_whole(m, s, back);
        CHECK(!memcmp(back, model, w * h * d * e), "host flags %#llx: contents", (unsigned long long)flags[i]);
        if (flags[i] == CL_MEM_USE_HOST_PTR) {
            /* A map returns the region inside host_ptr, with its pitches. */
            size_t org[3] = {3, 2, 1}, reg[3] = {4, 3, 2}, mrp = 0, msp = 0;
            unsigned char *p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, org, reg, &mrp, &msp, 0, NULL, NULL, &err);
            CHECK(p == host + 1 * sp + 2 * rp + 3 * e, "USE_HOST_PTR map at %p, host region at %p", (void *)p,
                  (void *)(host + sp + 2 * rp + 3 * e));
            CHECK(mrp == rp && msp == sp, "USE_HOST_PTR map pitches %zu %zu", mrp, msp);
            if (p) {
                p[0] ^= 0xff;
                model[model_off(s, e, 3, 2, 1)] ^= 0xff;
                EXPECT(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
            }
            /* A write reaches host_ptr by the next map. */
            size_t o1[3] = {0, 0, 0}, r1[3] = {1, 1, 1};
            unsigned char px[8] = {1, 2, 3, 4, 5, 6, 7, 8};
            EXPECT(clEnqueueWriteImage(q, m, CL_TRUE, o1, r1, 0, 0, px, 0, NULL, NULL), CL_SUCCESS);
            memcpy(model, px, 8);
            p = clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ, o1, r1, &mrp, &msp, 0, NULL, NULL, &err);
            CHECK(p == host && p && !memcmp(host, px, 8), "USE_HOST_PTR: a write is in host_ptr after a map");
            if (p) clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
            clFinish(q);
            read_whole(m, s, back);
            CHECK(!memcmp(back, model, w * h * d * e), "USE_HOST_PTR: contents after maps");
        }
        clReleaseMemObject(m);
    }
    /* ALLOC_HOST_PTR alone: no contents to check, but maps and round trips work. */
    cl_int err;
    cl_mem m = make_image(s, f, CL_MEM_ALLOC_HOST_PTR, NULL, NULL, &err);
    CHECK(m != NULL, "ALLOC_HOST_PTR: %d", err);
    if (m) {
        write_whole(m, s, model);
        read_whole(m, s, back);
        CHECK(!memcmp(back, model, w * h * d * e), "ALLOC_HOST_PTR round trip");
        clReleaseMemObject(m);
    }
    free(host);
    free(back);
    free(model);
}

/* ------------------------------------------------------------------ samplers */

static void test_samplers(void) {
    cl_addressing_mode am[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
    cl_filter_mode fm[] = {CL_FILTER_NEAREST, CL_FILTER_LINEAR};
    for (int a = 0; a < 5; a++)
        for (int f = 0; f < 2; f++)
            for (int n = 0; n < 2; n++) {
                if (!n && (am[a] == CL_ADDRESS_REPEAT || am[a] == CL_ADDRESS_MIRRORED_REPEAT)) continue;
                cl_int err;
                cl_sampler s = clCreateSampler(ctx, n ? CL_TRUE : CL_FALSE, am[a], fm[f], &err);
                CHECK(s && err == CL_SUCCESS, "sampler %d %d %d: %d", a, f, n, err);
                if (!s) continue;
                cl_bool nb = 7;
                cl_addressing_mode ga = 0;
                cl_filter_mode gf = 0;
                cl_context c = NULL;
                cl_uint refs = 0;
                EXPECT(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof nb, &nb, NULL), CL_SUCCESS);
                EXPECT(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof ga, &ga, NULL), CL_SUCCESS);
                EXPECT(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof gf, &gf, NULL), CL_SUCCESS);
                EXPECT(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof c, &c, NULL), CL_SUCCESS);
                CHECK(nb == (n ? CL_TRUE : CL_FALSE) && ga == am[a] && gf == fm[f] && c == ctx, "sampler info");
                EXPECT(clRetainSampler(s), CL_SUCCESS);
                EXPECT(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
                CHECK(refs == 2, "sampler refs %u", refs);
                EXPECT(clGetSamplerInfo(s, 0x9999, sizeof refs, &refs, NULL), CL_INVALID_VALUE);
                EXPECT(clReleaseSampler(s), CL_SUCCESS);
                EXPECT(clReleaseSampler(s), CL_SUCCESS);
            }
    cl_int err;
    CHECK(!clCreateSampler(ctx, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &err) && err == CL_INVALID_VALUE, "bad addressing: %d", err);
    CHECK(!clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, 0x1234, &err) && err == CL_INVALID_VALUE, "bad filter: %d", err);
    CHECK(!clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err) && err == CL_INVALID_CONTEXT, "NULL context: %d", err);
    EXPECT(clReleaseSampler(NULL), CL_INVALID_SAMPLER);
}

/* ------------------------------------------------------------------ kernel arguments */

static const char *KSRC =
    "__kernel void k(read_only image2d_t a, write_only image3d_t b, sampler_t s, __global int *out) {\n"
    "    out[get_global_id(0)] = 1;\n"
    "}\n";

static void test_kernel_args(void) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &KSRC, NULL, &err);
    err = clBuildProgram(p, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = {0};
        clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        CHECK(0, "a kernel with image arguments builds: %d\n%s", err, log);
        clReleaseProgram(p);
        return;
    }
    cl_kernel k = clCreateKernel(p, "k", &err);
    cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    cl_mem a = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, 16, 8, 1), f, CL_MEM_READ_ONLY, NULL, NULL, &err);
    cl_image_format f3 = {CL_R, CL_FLOAT};
    cl_mem b = make_image(shape_of(CL_MEM_OBJECT_IMAGE3D, 5, 4, 3), f3, CL_MEM_WRITE_ONLY, NULL, NULL, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 2, sizeof(cl_sampler), &s), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 3, sizeof(cl_mem), &out), CL_SUCCESS);
    /* Wrong kinds of objects. */
    err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    CHECK(err == CL_INVALID_MEM_OBJECT || err == CL_INVALID_ARG_VALUE, "a buffer as an image: %d", err);
    err = clSetKernelArg(k, 3, sizeof(cl_mem), &a);
    CHECK(err == CL_INVALID_MEM_OBJECT || err == CL_INVALID_ARG_VALUE, "an image as a buffer: %d", err);
    if (on_cudacl) EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &b), CL_INVALID_MEM_OBJECT); /* a 3-D image for image2d_t */
    /* An image the kernel would write but the host made read-only, and the other way round
     * (clSetKernelArg's CL_INVALID_ARG_VALUE; NVIDIA's OpenCL accepts both). */
    cl_mem ro3 = make_image(shape_of(CL_MEM_OBJECT_IMAGE3D, 5, 4, 3), f3, CL_MEM_READ_ONLY, NULL, NULL, &err);
    cl_mem wo2 = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, 16, 8, 1), f, CL_MEM_WRITE_ONLY, NULL, NULL, &err);
    if (on_cudacl) {
        EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &ro3), CL_INVALID_ARG_VALUE);
        EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &wo2), CL_INVALID_ARG_VALUE);
    }
    EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    clReleaseMemObject(ro3);
    clReleaseMemObject(wo2);
    cl_sampler bogus = (cl_sampler)&err;
    EXPECT(clSetKernelArg(k, 2, sizeof(cl_sampler), &bogus), CL_INVALID_SAMPLER);
    EXPECT(clSetKernelArg(k, 2, 4, &s), CL_INVALID_ARG_SIZE);
    EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 3, sizeof(cl_mem), &out), CL_SUCCESS);
    size_t g = 16;
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
    struct fakecuda_launch l;
    if (fake_last_launch && fake_last_launch(&l)) {
        /* The fake driver's device memory is host memory: the descriptors can be read here. */
        uint64_t pa, pb, bits;
        memcpy(&pa, l.params, 8);
        memcpy(&pb, l.params + 8, 8);
        memcpy(&bits, l.params + 16, 8);
        CHECK(bits == (1 | 6 | 0x20), "sampler bits %#llx", (unsigned long long)bits);
        CHECK(pa && pa % 16 == 0 && pb && pb % 16 == 0, "descriptor addresses %#llx %#llx", (unsigned long long)pa,
              (unsigned long long)pb);
        if (pa && pb) {
            const uint32_t *da = (const uint32_t *)(uintptr_t)(pa + 16), *db = (const uint32_t *)(uintptr_t)(pb + 16);
            uint64_t sa;
            memcpy(&sa, (const void *)(uintptr_t)pa, 8);
            CHECK(sa != 0, "a surface object");
            CHECK(da[0] == 16 && da[1] == 8 && da[2] == 1 && da[3] == 1 && da[4] == CL_RGBA && da[5] == CL_UNORM_INT8 && da[6] == 4 &&
                      da[7] == 4 && da[8] == CL_MEM_OBJECT_IMAGE2D,
                  "2d descriptor: %u %u %u %u %#x %#x %u %u %#x", da[0], da[1], da[2], da[3], da[4], da[5], da[6], da[7], da[8]);
            CHECK(db[0] == 5 && db[1] == 4 && db[2] == 3 && db[3] == 1 && db[4] == CL_R && db[5] == CL_FLOAT && db[6] == 4 &&
                      db[7] == 1 && db[8] == CL_MEM_OBJECT_IMAGE3D,
                  "3d descriptor: %u %u %u %u %#x %#x %u %u %#x", db[0], db[1], db[2], db[3], db[4], db[5], db[6], db[7], db[8]);
        }
    }
    clReleaseSampler(s);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* ------------------------------------------------------------------ kernels using images */

static const char *KIO =
    "__kernel void copy_ui(read_only image2d_t src, write_only image2d_t dst) {\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imageui(dst, p, read_imageui(src, p));\n"
    "}\n"
    "__kernel void copy_f(read_only image2d_t src, write_only image2d_t dst) {\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, read_imagef(src, p));\n"
    "}\n"
    "__kernel void sample(read_only image2d_t src, sampler_t s, __global float4 *out, int w) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    out[y * w + x] = read_imagef(src, s, (int2)(x - 1, y - 1));\n"
    "}\n"
    "__kernel void query(read_only image3d_t a, read_only image2d_array_t b, __global int *out) {\n"
    "    out[0] = get_image_width(a); out[1] = get_image_height(a); out[2] = get_image_depth(a);\n"
    "    out[3] = get_image_channel_order(a); out[4] = get_image_channel_data_type(a);\n"
    "    out[5] = get_image_array_size(b); out[6] = get_image_width(b);\n"
    "}\n"
    "__kernel void fill3d(write_only image3d_t dst) {\n"
    "    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n"
    "    write_imagei(dst, p, (int4)(p.x, p.y, p.z, -p.x - p.y));\n"
    "}\n"
    "__kernel void from_1d_buffer(read_only image1d_buffer_t src, __global uint4 *out) {\n"
    "    int x = get_global_id(0);\n"
    "    out[x] = read_imageui(src, x);\n"
    "}\n";

static cl_kernel kernel_of(cl_program p, const char *name) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CHECK(k != NULL, "kernel %s: %d", name, err);
    return k;
}

static void run2d(cl_kernel k, size_t w, size_t h) {
    size_t g[2] = {w, h};
    EXPECT(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(q), CL_SUCCESS);
}

/* Kernels reading and writing images (the kernel side's built-ins on cudacl's storage). The fake
 * driver runs no kernels: there this section only builds the program. */
static void test_kernel_io(void) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &KIO, NULL, &err);
    err = clBuildProgram(p, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        CHECK(0, "image kernels build: %d\n%s", err, log);
        clReleaseProgram(p);
        return;
    }
    if (fake_stats) {
        printf("kernel_io: built; skipped running (fake driver)\n");
        clReleaseProgram(p);
        return;
    }
    size_t w = 19, h = 11, o[3] = {0, 0, 0}, r[3] = {19, 11, 1};
    /* Integer and normalized copies through kernels, BGRA included (stored B,G,R,A). */
    cl_image_format fmts[3] = {{CL_RGBA, CL_UNSIGNED_INT8}, {CL_BGRA, CL_UNORM_INT8}, {CL_RG, CL_FLOAT}};
    const char *names[3] = {"copy_ui", "copy_f", "copy_f"};
    for (int i = 0; i < 3; i++) {
        size_t e = elem_size(fmts[i]), nb = w * h * e;
        unsigned char *src = malloc(nb), *back = malloc(nb);
        fill_bytes(src, nb, 7000 + i);
        if (fmts[i].image_channel_data_type == CL_FLOAT)
            for (size_t k = 0; k < nb / 4; k++) ((float *)src)[k] = (float)k * 0.25f - 7.0f;
        cl_mem a = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, w, h, 1), fmts[i], CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src, NULL, &err);
        cl_mem b = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, w, h, 1), fmts[i], CL_MEM_WRITE_ONLY, NULL, NULL, &err);
        cl_kernel k = kernel_of(p, names[i]);
        if (a && b && k) {
            clSetKernelArg(k, 0, sizeof a, &a);
            clSetKernelArg(k, 1, sizeof b, &b);
            run2d(k, w, h);
            EXPECT(clEnqueueReadImage(q, b, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
            size_t bad = nb;
            for (size_t j = 0; j < nb && bad == nb; j++)
                if (src[j] != back[j]) bad = j;
            CHECK(bad == nb, "%s %#x/%#x: byte %zu is %u, want %u", names[i], fmts[i].image_channel_order,
                  fmts[i].image_channel_data_type, bad, bad < nb ? back[bad] : 0, bad < nb ? src[bad] : 0);
        }
        if (k) clReleaseKernel(k);
        if (a) clReleaseMemObject(a);
        if (b) clReleaseMemObject(b);
        free(src);
        free(back);
    }
    /* A sampler argument: unnormalized, CLAMP, NEAREST; reads one pixel up and left, so the
     * first row and column read the border colour (0,0,0,0 for RGBA). */
    {
        cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
        size_t nb = w * h * 4;
        unsigned char *src = malloc(nb);
        fill_bytes(src, nb, 7100);
        cl_mem a = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D, w, h, 1), f, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src, NULL, &err);
        cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, w * h * 16, NULL, &err);
        cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        cl_kernel k = kernel_of(p, "sample");
        int wi = (int)w;
        if (k && a && s) {
            clSetKernelArg(k, 0, sizeof a, &a);
            clSetKernelArg(k, 1, sizeof s, &s);
            clSetKernelArg(k, 2, sizeof out, &out);
            clSetKernelArg(k, 3, sizeof wi, &wi);
            run2d(k, w, h);
            float *got = malloc(w * h * 16);
            EXPECT(clEnqueueReadBuffer(q, out, CL_TRUE, 0, w * h * 16, got, 0, NULL, NULL), CL_SUCCESS);
            int ok = 1;
            for (size_t y = 0; y < h && ok; y++)
                for (size_t x = 0; x < w && ok; x++)
                    for (int c = 0; c < 4 && ok; c++) {
                        float want = (x == 0 || y == 0) ? 0.0f : src[((y - 1) * w + x - 1) * 4 + c] / 255.0f;
                        float g = got[(y * w + x) * 4 + c];
                        if (fabsf(g - want) > 1e-6f) {
                            printf("  sample (%zu,%zu).%d = %g, want %g\n", x, y, c, g, want);
                            ok = 0;
                        }
                    }
            CHECK(ok, "sampler argument: CLAMP border and pixels");
            free(got);
        }
        if (k) clReleaseKernel(k);
        clReleaseSampler(s);
        clReleaseMemObject(a);
        clReleaseMemObject(out);
        free(src);
    }
    /* get_image_* in a kernel. */
    {
        cl_image_format f = {CL_R, CL_HALF_FLOAT};
        cl_mem a = make_image(shape_of(CL_MEM_OBJECT_IMAGE3D, 7, 5, 3), f, CL_MEM_READ_ONLY, NULL, NULL, &err);
        cl_mem b = make_image(shape_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 9, 4, 6), f, CL_MEM_READ_ONLY, NULL, NULL, &err);
        cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 64, NULL, &err);
        cl_kernel k = kernel_of(p, "query");
        if (k) {
            clSetKernelArg(k, 0, sizeof a, &a);
            clSetKernelArg(k, 1, sizeof b, &b);
            clSetKernelArg(k, 2, sizeof out, &out);
            size_t one = 1;
            EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL), CL_SUCCESS);
            int v[7] = {0};
            EXPECT(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL), CL_SUCCESS);
            CHECK(v[0] == 7 && v[1] == 5 && v[2] == 3 && v[3] == CL_R && v[4] == CL_HALF_FLOAT && v[5] == 6 && v[6] == 9,
                  "get_image_*: %d %d %d %#x %#x %d %d", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
            clReleaseKernel(k);
        }
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(out);
    }
    /* Writes to a 3-D image (cl_khr_3d_image_writes), read back on the host. */
    {
        cl_image_format f = {CL_RGBA, CL_SIGNED_INT16};
        struct shape s3 = shape_of(CL_MEM_OBJECT_IMAGE3D, 6, 5, 4);
        cl_mem a = make_image(s3, f, CL_MEM_WRITE_ONLY, NULL, NULL, &err);
        cl_kernel k = kernel_of(p, "fill3d");
        if (k && a) {
            clSetKernelArg(k, 0, sizeof a, &a);
            size_t g[3] = {6, 5, 4};
            EXPECT(clEnqueueNDRangeKernel(q, k, 3, NULL, g, NULL, 0, NULL, NULL), CL_SUCCESS);
            int16_t back[6 * 5 * 4 * 4];
            EXPECT(clEnqueueReadImage(q, a, CL_TRUE, o, s3.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
            int ok = 1;
            for (int z = 0; z < 4; z++)
                for (int y = 0; y < 5; y++)
                    for (int x = 0; x < 6; x++) {
                        int16_t *px = back + ((z * 5 + y) * 6 + x) * 4;
                        if (px[0] != x || px[1] != y || px[2] != z || px[3] != -x - y) ok = 0;
                    }
            CHECK(ok, "3-D image written by a kernel");
        }
        if (k) clReleaseKernel(k);
        if (a) clReleaseMemObject(a);
    }
    /* An image1d_buffer read in a kernel after the buffer was written. */
    {
        cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT32};
        cl_mem buf = NULL;
        cl_mem a = make_image(shape_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 33, 1, 1), f, CL_MEM_READ_ONLY, NULL, &buf, &err);
        cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 33 * 16, NULL, &err);
        unsigned int data[33 * 4], got[33 * 4];
        for (int i = 0; i < 33 * 4; i++) data[i] = 1000u * i + 7u;
        cl_kernel k = kernel_of(p, "from_1d_buffer");
        if (k && a && buf) {
            EXPECT(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL), CL_SUCCESS);
            clSetKernelArg(k, 0, sizeof a, &a);
            clSetKernelArg(k, 1, sizeof out, &out);
            size_t g = 33;
            EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
            EXPECT(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), CL_SUCCESS);
            CHECK(!memcmp(data, got, sizeof got), "image1d_buffer read in a kernel");
        }
        if (k) clReleaseKernel(k);
        if (a) clReleaseMemObject(a);
        if (buf) clReleaseMemObject(buf);
        clReleaseMemObject(out);
    }
    clReleaseProgram(p);
}

/* ------------------------------------------------------------------ several devices */

static void test_multi_device(void) {
    cl_device_id ds[2];
    cl_command_queue qs[2];
    cl_context c2 = two_gpu_context(platform, "multi-device", ds, qs);
    if (!c2) return;
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
    struct shape s = shape_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 10, 6, 3);
    size_t e = 4, nb = tight_bytes(s, e);
    unsigned char *model = malloc(nb), *back = malloc(nb);
    fill_bytes(model, nb, 6000);
    cl_image_desc d = desc_of(s, NULL);
    cl_int err;
    cl_mem m = clCreateImage(c2, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, &d, model, &err);
    CHECK(m != NULL, "2-device image: %d", err);
    size_t o0[3] = {0, 0, 0};
    EXPECT(clEnqueueReadImage(qs[1], m, CL_TRUE, o0, s.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(back, model, nb), "read on device 1");
    /* A write on device 1, read on device 0 (a copy between devices). */
    size_t org[3] = {2, 1, 1}, reg[3] = {5, 3, 2};
    unsigned char px[5 * 3 * 2 * 4];
    fill_bytes(px, sizeof px, 6001);
    EXPECT(clEnqueueWriteImage(qs[1], m, CL_TRUE, org, reg, 0, 0, px, 0, NULL, NULL), CL_SUCCESS);
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 3; y++) memcpy(model + model_off(s, e, 2, 1 + y, 1 + z), px + (z * 3 + y) * 5 * e, 5 * e);
    EXPECT(clEnqueueReadImage(qs[0], m, CL_TRUE, o0, s.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(back, model, nb), "device 1's write seen on device 0");
    /* Migrations: to device 0, to the host, content undefined to device 1; the pixels stay. */
    EXPECT(clEnqueueMigrateMemObjects(qs[0], 1, &m, 0, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueMigrateMemObjects(qs[1], 1, &m, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(qs[1]), CL_SUCCESS);
    EXPECT(clEnqueueReadImage(qs[1], m, CL_TRUE, o0, s.ext, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    CHECK(!memcmp(back, model, nb), "pixels after migrations");
    /* A map on device 0 after a fill on device 1. */
    unsigned int color[4] = {9, 8, 7, 6};
    EXPECT(clEnqueueFillImage(qs[1], m, color, o0, s.ext, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(qs[1]), CL_SUCCESS);
    size_t rp, sp;
    unsigned char *p = clEnqueueMapImage(qs[0], m, CL_TRUE, CL_MAP_READ, o0, s.ext, &rp, &sp, 0, NULL, NULL, &err);
    CHECK(p && p[0] == 9 && p[1] == 8 && p[2] == 7 && p[3] == 6 && p[sp * 2 + rp * 5 + 9 * 4 + 3] == 6, "map on device 0 after a fill on 1");
    if (p) clEnqueueUnmapMemObject(qs[0], m, p, 0, NULL, NULL);
    clFinish(qs[0]);
    clReleaseMemObject(m);
    clReleaseCommandQueue(qs[0]);
    clReleaseCommandQueue(qs[1]);
    clReleaseContext(c2);
    free(model);
    free(back);
    printf("multi_device: done\n");
}

int main(void) {
    platform = find_platform();
    device = find_gpu(platform);
    find_fake_driver(); /* after cudacl loaded the driver */
    if (!device) {
        printf("images: skipped (no GPU on the platform)\n");
        return 0;
    }
    char pname[256] = {0};
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    on_cudacl = strstr(pname, "cudacl") != NULL;
    if (fake_stats) printf("fake CUDA driver detected\n");
    cl_int err;
    ctx = suite_context(platform, &device, NULL, &err);
    q = clCreateCommandQueue(ctx, device, 0, &err);
    struct fakecuda_stats before;
    memset(&before, 0, sizeof before);
    if (fake_stats) fake_stats(&before);
    struct { const char *name; void (*fn)(void); } sections[] = {
        {"device_info", test_device_info}, {"formats", test_formats}, {"create_errors", test_create_errors},
        {"info", test_info},               {"round_trips", test_round_trips}, {"copies", test_copies},
        {"fill", test_fill},               {"map", test_map},          {"host_ptr_flags", test_host_ptr_flags},
        {"samplers", test_samplers},       {"kernel_args", test_kernel_args}, {"kernel_io", test_kernel_io},
        {"multi_device", test_multi_device},
    };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!wanted(sections[i].name)) continue;
        int failed = checks_failed;
        sections[i].fn();
        printf("%s: %s\n", sections[i].name, checks_failed == failed ? "ok" : "FAILED");
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    if (fake_stats) {
        struct fakecuda_stats after;
        fake_stats(&after);
        unsigned long long made = after.arrays_created - before.arrays_created, gone = after.arrays_destroyed - before.arrays_destroyed;
        CHECK(made == gone, "CUDA arrays created %llu, destroyed %llu", made, gone);
        CHECK(after.surfaces_created - before.surfaces_created == after.surfaces_destroyed - before.surfaces_destroyed, "surface objects leaked");
        CHECK(after.textures_created - before.textures_created == after.textures_destroyed - before.textures_destroyed, "texture objects leaked");
        CHECK(after.textures_created > before.textures_created, "no texture object made (2-D RGBA FLOAT images have one)");
        printf("  fake driver: %llu arrays, %llu copies with an array side\n", made, after.array_copies - before.array_copies);
    }
    return report("images");
}
