/* ompcl runtime, part of one C file (see rt_base.c): uploads staged through pinned memory, for OpenCL
   drivers whose copies from ordinary (pageable) memory are slow.
   NVIDIA's OpenCL copies a first upload from pageable memory at 6.7-8 GB/s on an H200 (driver 580,
   bench/firstupload.c, 2026-11-28-nvidia-first-upload.md), where a copy from pinned memory runs at
   50 GB/s. OpenCL has no call that pins the program's own memory, but a buffer made with
   CL_MEM_ALLOC_HOST_PTR and mapped is pinned memory on that driver, and a write whose source is that
   mapping goes straight to the copy engine. So an upload of STAGE_MIN bytes or more can go in
   chunks through two such buffers: while the copy engine reads one chunk, host threads copy the
   next into the other. That reaches 11-14 GB/s on NVIDIA, but making the two staging buffers costs
   12-24 ms there, more than it saves unless a program uploads a few hundred MB; and cudacl already
   stages its own pageable transfers faster (its transfer.rs). So it is off unless OMPCL_STAGE=1. */
#define STAGE_MIN ((size_t)1 << 20)
#define STAGE_CHUNK ((size_t)8 << 20)
#define STAGE_THREADS 4

static int g_stage = -1; /* -1: not decided yet, 0: plain writes, 1: staged */
static cl_mem g_stage_mem[2];
static char *g_stage_ptr[2];
static cl_event g_stage_done[2];

/* Whether uploads are staged; makes the two staging buffers the first time. */
static int stage_ready(void) {
    if (g_stage >= 0) return g_stage;
    g_stage = 0;
    const char *e = getenv("OMPCL_STAGE");
    int want = e && strcmp(e, "0") != 0;
    if (!want || !cl.EnqueueMapBuffer || !cl.WaitForEvents || !cl.ReleaseEvent) return 0;
    for (int k = 0; k < 2; k++) {
        cl_int err = 0;
        g_stage_mem[k] = cl.CreateBuffer(g_ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, STAGE_CHUNK, NULL, &err);
        if (!g_stage_mem[k] || err) return 0;
        g_stage_ptr[k] = cl.EnqueueMapBuffer(g_q, g_stage_mem[k], 1, CL_MAP_WRITE, 0, STAGE_CHUNK, 0, NULL, NULL, &err);
        if (!g_stage_ptr[k] || err) return 0;
    }
    g_stage = 1;
    return 1;
}

typedef struct copy_part {
    char *dst;
    const char *src;
    size_t n;
} copy_part;

static void *copy_part_run(void *a) {
    copy_part *c = a;
    memcpy(c->dst, c->src, c->n);
    return NULL;
}

/* memcpy by STAGE_THREADS threads (one alone reads pageable memory at about 10 GB/s). */
static void copy_parallel(char *dst, const char *src, size_t n) {
    if (n < ((size_t)2 << 20)) {
        memcpy(dst, src, n);
        return;
    }
    pthread_t t[STAGE_THREADS];
    copy_part c[STAGE_THREADS];
    size_t part = (n / STAGE_THREADS + 63) & ~(size_t)63;
    int started = 0;
    for (int k = 0; k < STAGE_THREADS; k++) {
        size_t at = (size_t)k * part;
        c[k].dst = dst + at;
        c[k].src = src + at;
        c[k].n = at >= n ? 0 : (n - at < part ? n - at : part);
        if (k > 0 && c[k].n && pthread_create(&t[k], NULL, copy_part_run, &c[k]) == 0) started |= 1 << k;
        else if (k > 0) copy_part_run(&c[k]);
    }
    copy_part_run(&c[0]);
    for (int k = 1; k < STAGE_THREADS; k++)
        if (started & (1 << k)) pthread_join(t[k], NULL);
}

/* Waits for staging buffer k's last copy; 0 or the error. */
static cl_int stage_wait(int k) {
    cl_int e = 0;
    if (g_stage_done[k]) {
        e = cl.WaitForEvents(1, &g_stage_done[k]);
        cl.ReleaseEvent(g_stage_done[k]);
        g_stage_done[k] = NULL;
    }
    return e;
}

/* Writes n bytes at p into mem at off, staged; returns when the data is on the device. */
static cl_int write_staged(cl_mem mem, size_t off, size_t n, const void *p) {
    cl_int e = 0;
    int k = 0;
    for (size_t done = 0; done < n && !e; done += STAGE_CHUNK, k ^= 1) {
        size_t len = n - done < STAGE_CHUNK ? n - done : STAGE_CHUNK;
        e = stage_wait(k);
        if (e) break;
        copy_parallel(g_stage_ptr[k], (const char *)p + done, len);
        e = cl.EnqueueWriteBuffer(g_q, mem, 0, off + done, len, g_stage_ptr[k], 0, NULL, &g_stage_done[k]);
    }
    cl_int e0 = stage_wait(0), e1 = stage_wait(1);
    return e ? e : e0 ? e0 : e1;
}

/* clEnqueueWriteBuffer, blocking, staged where that is faster. */
static cl_int write_buffer(cl_mem mem, size_t off, size_t n, const void *p) {
    if (n >= STAGE_MIN && stage_ready()) return write_staged(mem, off, n, p);
    return cl.EnqueueWriteBuffer(g_q, mem, 1, off, n, p, 0, NULL, NULL);
}
