/* ompcl runtime, part of one C file (see rt_base.c): kernel arguments that are tables of row
   pointers (OMPCL_ROWS: `T **p` that the kernel uses only as `p[i][j]`, the translator's
   row_pointers.rs). OpenCL 1.2 has no pointers to pointers in kernel arguments, so the kernel takes
   the rows' data as one buffer and a table of element offsets, one per row (`p[i][j]` is
   `p__rows[p__off[i] + j]`).

   At each launch the host reads the row pointers (the table's block, from the table pointer to
   its block's end) and finds each row's block in the allocation table:
   - every row in ONE block (rows carved out of one allocation, `rows[i] = rows[0] + i * n`): the
     buffer is that block's own device copy, with the residency, write tracking and lazy copy-back
     of any other block (rt_launch.c's use table); nothing extra is copied;
   - rows in several blocks (each row its own malloc): the blocks are packed into one temporary
     device buffer, sent at every launch, and the written ones copied back into their blocks right
     after the kernel (host-dirty after: a later kernel re-sends them).
   A row that is NULL is never read by a correct program: it gets offset 0. A row pointing into no
   block ompcl knows (a stack array, static memory of a library), or not at a whole element of its
   block, sends the region to the CPU, with the reason. */

static int wr(cl_mem mem, size_t off, size_t n, const void *p);
static int rd(cl_mem mem, size_t off, size_t n, void *p);

typedef struct rowset {
    blk **blocks;   /* the distinct blocks holding rows, by base address */
    size_t nb;
    size_t *pos;    /* packed (nb > 1): byte position of blocks[k] in the buffer */
    size_t bytes;   /* packed: the buffer's bytes */
    size_t nrows;
    cl_long *off;   /* per row: element offset in the buffer */
    cl_mem data;    /* packed: the buffer (nb == 1: NULL, blocks[0]->mem serves) */
    cl_mem offs;    /* the offsets on the device */
    int written;
    cl_uint argi;   /* the kernel argument index of the buffer (the offsets: the next one) */
} rowset;

/* The row blocks are packed at multiples of this (an element of any scalar type stays aligned). */
#define ROW_ALIGN 16

static int blk_by_base(const void *a, const void *b) {
    const blk *x = *(blk *const *)a, *y = *(blk *const *)b;
    return x->base < y->base ? -1 : x->base > y->base;
}

static void rows_free(rowset *rs) {
    if (rs->data) cl.ReleaseMemObject(rs->data);
    if (rs->offs) cl.ReleaseMemObject(rs->offs);
    free(rs->blocks);
    free(rs->pos);
    free(rs->off);
    memset(rs, 0, sizeof *rs);
}

/* The rows of OMPCL_ROWS argument x (x->size: the element's bytes) and their blocks and offsets
   into rs (g_lock held). Returns NULL, or why the kernel cannot take them (rs freed then). */
static const char *rows_resolve(const ompcl_arg *x, rowset *rs, char *why, size_t nwhy) {
    memset(rs, 0, sizeof *rs);
    rs->written = x->written;
    const char *t = x->addr;
    blk *tb = t ? tab_find(t) : NULL;
    if (!tb || t >= tb->base + tb->size) {
        snprintf(why, nwhy, "'%s' (a table of row pointers) does not point into memory ompcl knows", x->name);
        return why;
    }
    /* the table as the host has it (a kernel may have left its block on the device) */
    pthread_mutex_lock(&g_fault);
    host_access(tb, 0);
    fault_unlock();
    size_t n = (size_t)(tb->base + tb->size - t) / sizeof(char *);
    char *const *row = (char *const *)t;
    blk **rb = malloc((n + 1) * sizeof *rb);
    rs->off = malloc((n + 1) * sizeof *rs->off);
    rs->blocks = malloc((n + 1) * sizeof *rs->blocks);
    rs->nrows = n;
    for (size_t i = 0; i < n; i++) {
        char *r = row[i];
        blk *b = r ? tab_find(r) : NULL;
        if (r && (!b || r >= b->base + b->size || b->is_global < 0)) {
            snprintf(why, nwhy, "row %zu of '%s' does not point into memory ompcl knows (malloc'd or global)", i, x->name);
            free(rb);
            rows_free(rs);
            return why;
        }
        if (b && (size_t)(r - b->base) % x->size) {
            snprintf(why, nwhy, "row %zu of '%s' does not start at a whole element of its block", i, x->name);
            free(rb);
            rows_free(rs);
            return why;
        }
        rb[i] = b;
    }
    /* the distinct blocks, in address order */
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        if (rb[i] && (nb == 0 || rs->blocks[nb - 1] != rb[i])) rs->blocks[nb++] = rb[i];
    qsort(rs->blocks, nb, sizeof *rs->blocks, blk_by_base);
    size_t u = 0;
    for (size_t k = 0; k < nb; k++)
        if (u == 0 || rs->blocks[u - 1] != rs->blocks[k]) rs->blocks[u++] = rs->blocks[k];
    rs->nb = nb = u;
    rs->pos = calloc(nb + 1, sizeof *rs->pos);
    if (nb > 1) {
        size_t at = 0;
        for (size_t k = 0; k < nb; k++) {
            rs->pos[k] = at;
            at += (rs->blocks[k]->size + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
        }
        rs->bytes = at;
    }
    for (size_t i = 0; i < n; i++) {
        if (!rb[i]) { rs->off[i] = 0; continue; }
        size_t lo = 0, hi = nb; /* blocks[lo] is rb[i]: binary search by base */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (rs->blocks[mid]->base <= rb[i]->base) lo = mid; else hi = mid;
        }
        rs->off[i] = (cl_long)((rs->pos[lo] + (size_t)(row[i] - rb[i]->base)) / x->size);
    }
    free(rb);
    return NULL;
}

/* Whether block b holds rows of rs. */
static int rows_in_block(const rowset *rs, const blk *b) {
    size_t lo = 0, hi = rs->nb;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rs->blocks[mid] == b) return 1;
        if (rs->blocks[mid]->base < b->base) lo = mid + 1; else hi = mid;
    }
    return 0;
}

/* Phase of ompcl_region_opencl (g_lock held): the packed buffer of rows in several blocks, filled
   from the host's current copies, and the offsets, on the device. Returns 0 or -1. */
static int rows_upload(rowset *rs) {
    cl_int err = 0;
    if (rs->nb > 1) {
        char *pack = calloc(1, rs->bytes ? rs->bytes : 1);
        for (size_t k = 0; k < rs->nb; k++) {
            blk *b = rs->blocks[k];
            pthread_mutex_lock(&g_fault);
            host_access(b, 0); /* a block a kernel left on the device comes back first */
            fault_unlock();
            memcpy(pack + rs->pos[k], b->base, b->size);
        }
        rs->data = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, rs->bytes ? rs->bytes : 1, NULL, &err);
        if (!rs->data || err || wr(rs->data, 0, rs->bytes, pack)) { free(pack); return -1; }
        free(pack);
    }
    size_t ob = (rs->nrows ? rs->nrows : 1) * sizeof *rs->off;
    rs->offs = cl.CreateBuffer(g_ctx, CL_MEM_READ_WRITE, ob, NULL, &err);
    if (!rs->offs || err) return -1;
    return rs->nrows && wr(rs->offs, 0, rs->nrows * sizeof *rs->off, rs->off) ? -1 : 0;
}

/* Phase of ompcl_region_opencl, after the kernel: a written packed buffer copied back into its
   blocks, which are then host-dirty (the next kernel using them re-sends them). Returns 0 or -1. */
static int rows_copy_back(rowset *rs) {
    if (rs->nb < 2 || !rs->written) return 0;
    char *pack = malloc(rs->bytes ? rs->bytes : 1);
    if (rd(rs->data, 0, rs->bytes, pack)) { free(pack); return -1; }
    pthread_mutex_lock(&g_lock);
    for (size_t k = 0; k < rs->nb; k++) {
        blk *b = rs->blocks[k];
        pthread_mutex_lock(&g_fault);
        host_access(b, 1);
        fault_unlock();
        memcpy(b->base, pack + rs->pos[k], b->size);
        b->dirty = 1;
    }
    pthread_mutex_unlock(&g_lock);
    free(pack);
    return 0;
}

/* Part of ompcl_no_alias (g_lock held): 0 when the rows of a table share a block with another
   memory argument, one of the two written (a table whose rows cannot be resolved: 0 too, the
   launch will refuse it anyway). */
static int rows_no_alias(ompcl_arg *a, int na) {
    int ok = 1;
    char why[200];
    for (int i = 0; i < na && ok; i++) {
        if (a[i].kind != OMPCL_ROWS) continue;
        rowset ri;
        if (rows_resolve(&a[i], &ri, why, sizeof why)) return 0;
        for (int j = 0; j < na && ok; j++) {
            if (j == i || (!a[i].written && !a[j].written)) continue;
            if (a[j].kind == OMPCL_BUF) {
                blk *b = tab_find(a[j].addr);
                if (b && rows_in_block(&ri, b)) ok = 0;
            } else if (a[j].kind == OMPCL_ROWS) {
                rowset rj;
                if (rows_resolve(&a[j], &rj, why, sizeof why)) { ok = 0; break; }
                for (size_t k = 0; k < rj.nb && ok; k++)
                    if (rows_in_block(&ri, rj.blocks[k])) ok = 0;
                rows_free(&rj);
            }
        }
        rows_free(&ri);
    }
    return ok;
}
