/*
 * The test matrix's data: the values each rank puts in, the user-defined
 * ops, and each rank's buffers and expected results for one case of each
 * collective (see matrix.h).
 *
 * Integer sums use values that cannot overflow, doubles are integer-valued
 * (sums exact in any order), products multiply +-1 and +-2, and the matrix
 * product works modulo 2^32 (exact and associative, never commutative).
 */
#include "matrix.h"

#include <stdlib.h>
#include <string.h>

size_t base_size(int base)
{
    return base == BASE_INT ? sizeof(int) : base == BASE_DOUBLE ? sizeof(double) : 1;
}

int is_reduction(topocoll_coll coll)
{
    return coll == TOPOCOLL_REDUCE || coll == TOPOCOLL_REDUCE_SCATTER_BLOCK || coll == TOPOCOLL_ALLREDUCE ||
           coll == TOPOCOLL_REDUCE_SCATTER || coll == TOPOCOLL_SCAN || coll == TOPOCOLL_EXSCAN;
}

int is_rooted(topocoll_coll coll)
{
    return coll != TOPOCOLL_REDUCE_SCATTER_BLOCK && coll != TOPOCOLL_ALLGATHER &&
           coll != TOPOCOLL_ALLTOALL && coll != TOPOCOLL_ALLREDUCE && coll != TOPOCOLL_REDUCE_SCATTER &&
           coll != TOPOCOLL_SCAN && coll != TOPOCOLL_EXSCAN;
}

/* MPI allows MPI_IN_PLACE for this collective (bcast: no). */
int has_in_place(topocoll_coll coll)
{
    return coll != TOPOCOLL_BCAST;
}

/* ---- values ------------------------------------------------------------------ */

/* The hash of (owner, case) that every element's value starts from. */
static uint32_t value_seed(int owner, int casen)
{
    return tm_fmix32((uint32_t)casen * 0x9E3779B1u + (uint32_t)owner);
}

/* The value of logical element k of `owner` in case `casen` (seed:
 * value_seed(owner, casen)), as bytes.  h2 is hashed only for the kinds
 * that use it: every rank computes every rank's values for the expected
 * results, and at np 8 the hashing was a sixth of the matrix runs' CPU. */
static void make_value(int base, int vk, uint32_t seed, size_t k, unsigned char *out)
{
    uint32_t h0 = tm_fmix32(seed ^ (uint32_t)k);
    uint32_t h = tm_fmix32(h0 ^ (uint32_t)(k >> 32));
#define H2 tm_fmix32(h0 ^ 0x5BD1E995u)
    if (base == BASE_INT) {
        int v;
        uint32_t u;
        switch (vk) {
        case V_SMALL: v = (int)(h % 2001u) - 1000; break;
        case V_PROD: { static const int pv[4] = { -2, -1, 1, 2 }; v = pv[h & 3u]; break; }
        case V_DENSE: u = h | H2; memcpy(&v, &u, sizeof v); break;
        case V_SPARSE: u = h & H2; memcpy(&v, &u, sizeof v); break;
        case V_WIDE: memcpy(&v, &h, sizeof v); break;
        default:
            if (h == 0xA5A5A5A5u) h ^= 1u;
            v = (int)(h & 0x7FFFFFFFu);
        }
        memcpy(out, &v, sizeof v);
    } else if (base == BASE_DOUBLE) {
        double v;
        switch (vk) {
        case V_SMALL: v = (double)((int)(h % 2001u) - 1000); break;
        case V_PROD: { static const double pv[4] = { -2.0, -1.0, 1.0, 2.0 }; v = pv[h & 3u]; break; }
        case V_WIDE: v = (double)((int64_t)(h >> 8) - 8388608); break;   /* integer-valued, signed */
        default: v = (double)(h >> 8) + 0.25;                                /* exact, never the sentinel */
        }
        memcpy(out, &v, sizeof v);
    } else {
        unsigned char v;
        switch (vk) {
        case V_SMALL: v = (unsigned char)(h % 16u); break;
        case V_DENSE: v = (unsigned char)((h | H2) >> 24); break;
        case V_SPARSE: v = (unsigned char)((h & H2) >> 24); break;
        case V_WIDE: v = (unsigned char)(h >> 24); break;
        default:
            v = (unsigned char)(h >> 24);
            if (v == SENTINEL) v = 0x5A;
        }
        out[0] = v;
    }
#undef H2
}

/* Writes `count` elements of layout l for `owner` into buf (data positions
 * only); logical element numbers start at kbase. */
static void fill_data(unsigned char *buf, int base, int vk, const layout *l, size_t count,
                      int owner, size_t kbase, int casen)
{
    size_t bs = base_size(base);
    uint32_t seed = value_seed(owner, casen);
    for (size_t e = 0; e < count; e++)
        for (int j = 0; j < l->nper; j++)
            make_value(base, vk, seed, kbase + e * (size_t)l->nper + (size_t)j,
                       buf + (e * (size_t)l->ext + (size_t)l->offs[j]) * bs);
}

/* Copies the data positions of count elements of layout l. */
static void copy_data(unsigned char *dst, const unsigned char *src, int base, const layout *l,
                      size_t count)
{
    size_t bs = base_size(base);
    for (size_t e = 0; e < count; e++)
        for (int j = 0; j < l->nper; j++) {
            size_t at = (e * (size_t)l->ext + (size_t)l->offs[j]) * bs;
            memcpy(dst + at, src + at, bs);
        }
}

static size_t elem_bytes(int base, const layout *l)
{
    return (size_t)l->ext * base_size(base);
}

/* First differing byte of [0, def) and [span, span + GUARD_BYTES), or -1. */
long long diff_defined(const unsigned char *a, const unsigned char *b, size_t def, size_t span)
{
    long long d = tm_first_diff(a, b, def);
    if (d >= 0) return d;
    d = tm_first_diff(a + span, b + span, GUARD_BYTES);
    return d >= 0 ? (long long)span + d : -1;
}

/* ---- user-defined ops ----------------------------------------------------- */

MPI_Datatype g_vec = MPI_DATATYPE_NULL;      /* vector(2,1,3,MPI_INT): ints at 0, 3; extent 4 */
MPI_Datatype g_mat = MPI_DATATYPE_NULL;      /* contiguous(4,MPI_INT): a 2x2 matrix */
MPI_Datatype g_matgap = MPI_DATATYPE_NULL;   /* vector(2,2,3,MPI_INT): ints at 0,1,3,4; extent 5 */
const layout L_ONE = { 1, { 0, 0, 0, 0 }, 1 };
const layout L_VEC = { 2, { 0, 3, 0, 0 }, 4 };
const layout L_THREE = { 3, { 0, 1, 2, 0 }, 3 };
const layout L_MAT = { 4, { 0, 1, 2, 3 }, 4 };
const layout L_MATGAP = { 4, { 0, 1, 3, 4 }, 5 };
/* struct {hole; int; int; hole} resized to 4 ints: ints at 1, 2; extent 4 */
MPI_Datatype g_holes = MPI_DATATYPE_NULL;
const layout L_HOLES = { 2, { 1, 2, 0, 0 }, 4 };
MPI_Op g_usum = MPI_OP_NULL, g_matmul = MPI_OP_NULL;   /* the user-defined ops */
int g_bad_type_calls;   /* user op called with a datatype it does not know */

static const layout *layout_of(MPI_Datatype t)
{
    if (t == MPI_INT) return &L_ONE;
    if (t == g_vec) return &L_VEC;
    if (t == g_mat) return &L_MAT;
    if (t == g_matgap) return &L_MATGAP;
    return NULL;
}

/* Commutative: inout = in + inout on the ints of any of the types above. */
void op_usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const layout *l = layout_of(*dt);
    const int *a = in;
    int *b = inout;
    if (!l) { g_bad_type_calls++; return; }
    for (int i = 0; i < *len; i++)
        for (int j = 0; j < l->nper; j++) {
            int at = i * l->ext + l->offs[j];
            b[at] = a[at] + b[at];
        }
}

/* Non-commutative: inout = in x inout, 2x2 matrices (row major) modulo 2^32. */
void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const layout *l = layout_of(*dt);
    const unsigned char *a = in;
    unsigned char *b = inout;
    if (!l || l->nper != 4) { g_bad_type_calls++; return; }
    for (int i = 0; i < *len; i++) {
        uint32_t x[4], y[4], r[4];
        for (int j = 0; j < 4; j++) {
            memcpy(&x[j], a + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), sizeof(int));
            memcpy(&y[j], b + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), sizeof(int));
        }
        r[0] = x[0] * y[0] + x[1] * y[2];
        r[1] = x[0] * y[1] + x[1] * y[3];
        r[2] = x[2] * y[0] + x[3] * y[2];
        r[3] = x[2] * y[1] + x[3] * y[3];
        for (int j = 0; j < 4; j++)
            memcpy(b + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), &r[j], sizeof(int));
    }
}

/* ---- buffers ----------------------------------------------------------------- */

/* The buffers live in slots reused from case to case (a case's buffers
 * allocated and freed each time cost more in page faults than the case
 * itself); slots over SLOT_KEEP bytes (the large cases) are freed after use. */
enum { SLOT_S, SLOT_S_ORIG, SLOT_R, SLOT_R_REF, SLOT_R_EXP, SLOT_ACC, SLOT_TMP, NSLOTS };
#define SLOT_KEEP ((size_t)16 << 20)

static struct slot {
    unsigned char *p;
    size_t cap;
} g_slots[NSLOTS];

static unsigned char *slot_get(int i, size_t n)
{
    struct slot *s = &g_slots[i];
    size_t cap = 64;
    if (n == 0) n = 1;
    if (s->cap >= n) return s->p;
    while (cap < n) cap *= 2;
    free(s->p);
    s->p = malloc(cap);
    s->cap = s->p ? cap : 0;
    return s->p;
}

static void slot_put(int i)
{
    if (g_slots[i].cap <= SLOT_KEEP) return;
    free(g_slots[i].p);
    g_slots[i].p = NULL;
    g_slots[i].cap = 0;
}

void free_bufs(bufs *b)
{
    for (int i = 0; i < NSLOTS; i++) slot_put(i);
    memset(b, 0, sizeof *b);
}

void release_buffers(void)
{
    for (int i = 0; i < NSLOTS; i++) {
        free(g_slots[i].p);
        g_slots[i].p = NULL;
        g_slots[i].cap = 0;
    }
}

static unsigned char *alloc_fill(int slot, size_t n, int byte)
{
    unsigned char *p = slot_get(slot, n);
    if (p) memset(p, byte, n ? n : 1);
    return p;
}

/* The receive buffer (span bytes, then the guard) and its expected image,
 * both the sentinel. */
static int alloc_recv(bufs *b, size_t span, size_t def)
{
    b->rspan = span;
    b->rdef = def;
    b->rtotal = span + GUARD_BYTES;
    if (!(b->r = alloc_fill(SLOT_R, b->rtotal, SENTINEL)) || !(b->r_exp = alloc_fill(SLOT_R_EXP, b->rtotal, SENTINEL)))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

static int alloc_send(bufs *b, size_t bytes)
{
    b->sbytes = bytes;
    return (b->s = alloc_fill(SLOT_S, bytes, SEND_GAP)) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* exp[0, n elements) := the fold of ranks 0..p-1's inputs (logical elements
 * from kbase) in rank order, a0 op (a1 op (... op a_{p-1})), with
 * PMPI_Reduce_local; data positions only (gaps keep what exp has). */
static int expected_reduction(const red_case *rc, int p, size_t n, size_t kbase, int casen,
                              unsigned char *exp)
{
    size_t bytes = n * elem_bytes(rc->base, &rc->l);
    unsigned char *acc, *tmp;
    int rcode = MPI_SUCCESS;
    if (n == 0) return MPI_SUCCESS;
    acc = alloc_fill(SLOT_ACC, bytes, SEND_GAP);
    tmp = alloc_fill(SLOT_TMP, bytes, SEND_GAP);
    if (!acc || !tmp) return MPI_ERR_NO_MEM;
    fill_data(acc, rc->base, rc->vk, &rc->l, n, p - 1, kbase, casen);
    for (int r = p - 2; r >= 0 && rcode == MPI_SUCCESS; r--) {
        fill_data(tmp, rc->base, rc->vk, &rc->l, n, r, kbase, casen);
        rcode = PMPI_Reduce_local(tmp, acc, (int)n, rc->type, rc->op);
    }
    if (rcode == MPI_SUCCESS) copy_data(exp, acc, rc->base, &rc->l, n);
    return rcode;
}

/* The sizes of a data-movement case: send and receive counts and blocks. */
typedef struct dims {
    const type_case *tc;
    int sc, rc;                  /* send / receive element counts */
    size_t sblock, rblock;       /* their bytes */
} dims;

static dims dims_of(const ccase *k)
{
    dims d;
    size_t bs = base_size(k->tc->base);
    d.tc = k->tc;
    d.sc = k->count * k->tc->smul;
    d.rc = k->count * k->tc->rmul;
    d.sblock = (size_t)d.sc * (size_t)k->tc->sl.ext * bs;
    d.rblock = (size_t)d.rc * (size_t)k->tc->rl.ext * bs;
    return d;
}

/* Writes the receive-side values of `owner` (rc elements) at buf. */
static void fill_recv(unsigned char *buf, const dims *d, int owner, int casen)
{
    fill_data(buf, d->tc->base, V_PLAIN, &d->tc->rl, (size_t)d->rc, owner, 0, casen);
}

static void fill_send(unsigned char *buf, const dims *d, int owner, int casen)
{
    fill_data(buf, d->tc->base, V_PLAIN, &d->tc->sl, (size_t)d->sc, owner, 0, casen);
}

/* allgather: every rank's block, in rank order, everywhere. */
static int setup_allgather(const ccase *k, int rank, int size, int casen, bufs *b)
{
    dims d = dims_of(k);
    if (!k->in_place) {
        if (alloc_send(b, d.sblock) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_send(b->s, &d, rank, casen);
    }
    if (alloc_recv(b, d.rblock * (size_t)size, d.rblock * (size_t)size) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_recv(b->r + (size_t)rank * d.rblock, &d, rank, casen);
    for (int q = 0; q < size; q++) fill_recv(b->r_exp + (size_t)q * d.rblock, &d, q, casen);
    return MPI_SUCCESS;
}

/* bcast: the root holds stype x sc, the others receive rtype x rc. */
static int setup_bcast(const ccase *k, int rank, int casen, bufs *b)
{
    dims d = dims_of(k);
    int root = rank == k->root;
    const layout *l = root ? &d.tc->sl : &d.tc->rl;
    size_t cnt = root ? (size_t)d.sc : (size_t)d.rc;
    if (alloc_recv(b, root ? d.sblock : d.rblock, root ? d.sblock : d.rblock) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    b->unit = (size_t)l->ext * base_size(d.tc->base);
    if (root) fill_data(b->r, d.tc->base, V_PLAIN, l, cnt, k->root, 0, casen);
    fill_data(b->r_exp, d.tc->base, V_PLAIN, l, cnt, k->root, 0, casen);
    b->a.rcount = (int)cnt;
    b->a.rtype = root ? d.tc->stype : d.tc->rtype;
    return MPI_SUCCESS;
}

static int setup_scatter(const ccase *k, int rank, int size, int casen, bufs *b)
{
    dims d = dims_of(k);
    int root = rank == k->root;
    if (root) {
        if (alloc_send(b, d.sblock * (size_t)size) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        for (int q = 0; q < size; q++) fill_send(b->s + (size_t)q * d.sblock, &d, q, casen);
    }
    if (!(root && k->in_place)) {
        if (alloc_recv(b, d.rblock, d.rblock) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_recv(b->r_exp, &d, rank, casen);
    }
    return MPI_SUCCESS;
}

static int setup_gather(const ccase *k, int rank, int size, int casen, bufs *b)
{
    dims d = dims_of(k);
    int root = rank == k->root;
    if (!(root && k->in_place)) {
        if (alloc_send(b, d.sblock) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_send(b->s, &d, rank, casen);
    }
    if (root) {
        size_t span = d.rblock * (size_t)size;
        if (alloc_recv(b, span, span) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        if (k->in_place) fill_recv(b->r + (size_t)k->root * d.rblock, &d, k->root, casen);
        for (int q = 0; q < size; q++) fill_recv(b->r_exp + (size_t)q * d.rblock, &d, q, casen);
    }
    return MPI_SUCCESS;
}

static int setup_reduce(const ccase *k, int rank, int size, int casen, bufs *b)
{
    const red_case *rc = k->rc;
    size_t n = (size_t)k->count, nb = n * elem_bytes(rc->base, &rc->l);
    int root = rank == k->root;
    if (!(root && k->in_place)) {
        if (alloc_send(b, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_data(b->s, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    }
    if (!root) return MPI_SUCCESS;
    if (alloc_recv(b, nb, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_data(b->r, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    return expected_reduction(rc, size, n, 0, casen, b->r_exp);
}

/* reduce_scatter_block: p blocks of n in, block `rank` out. */
static int setup_reduce_scatter_block(const ccase *k, int rank, int size, int casen, bufs *b)
{
    const red_case *rc = k->rc;
    size_t n = (size_t)k->count, nb = n * elem_bytes(rc->base, &rc->l);
    if (!k->in_place) {
        if (alloc_send(b, nb * (size_t)size) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_data(b->s, rc->base, rc->vk, &rc->l, n * (size_t)size, rank, 0, casen);
    }
    if (alloc_recv(b, k->in_place ? nb * (size_t)size : nb, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_data(b->r, rc->base, rc->vk, &rc->l, n * (size_t)size, rank, 0, casen);
    return expected_reduction(rc, size, n, (size_t)rank * n * (size_t)rc->l.nper, casen, b->r_exp);
}

/* reduce_scatter: rank q's block has count + q % 2 elements, none at the
 * ranks q % 3 == 1 (the same counts everywhere; kept until the next case);
 * the input is the vector of all blocks, rank r gets its block's reduction.
 * In place, the receive buffer holds the vector. */
static int *rs_counts(int size, int n)
{
    static int *c, cap;
    if (size > cap) {
        int *m = realloc(c, (size_t)size * sizeof *c);
        if (!m) return NULL;
        c = m, cap = size;
    }
    for (int q = 0; q < size; q++) c[q] = q % 3 == 1 ? 0 : n + q % 2;
    return c;
}

static int setup_reduce_scatter(const ccase *k, int rank, int size, int casen, bufs *b)
{
    const red_case *rc = k->rc;
    size_t es = elem_bytes(rc->base, &rc->l), total = 0, at = 0;
    int *c = rs_counts(size, k->count);
    if (!c) return MPI_ERR_NO_MEM;
    for (int q = 0; q < size; q++) {
        if (q < rank) at += (size_t)c[q];
        total += (size_t)c[q];
    }
    size_t mine = (size_t)c[rank];
    b->a.vcnt[1] = c;
    if (!k->in_place) {
        if (alloc_send(b, total * es) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_data(b->s, rc->base, rc->vk, &rc->l, total, rank, 0, casen);
    }
    if (alloc_recv(b, k->in_place ? total * es : mine * es, mine * es) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_data(b->r, rc->base, rc->vk, &rc->l, total, rank, 0, casen);
    return expected_reduction(rc, size, mine, at * (size_t)rc->l.nper, casen, b->r_exp);
}

/* alltoall: block q of rank r's input goes to rank q as block r; logical
 * elements are numbered across the whole input, so a block that lands in
 * the wrong place shows.  In place, the receive buffer holds the input (in
 * the receive layout). */
static int setup_alltoall(const ccase *k, int rank, int size, int casen, bufs *b)
{
    dims d = dims_of(k);
    size_t per = (size_t)d.rc * (size_t)d.tc->rl.nper;   /* logical elements per block */
    if (!k->in_place) {
        if (alloc_send(b, d.sblock * (size_t)size) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        for (int q = 0; q < size; q++)
            fill_data(b->s + (size_t)q * d.sblock, d.tc->base, V_PLAIN, &d.tc->sl, (size_t)d.sc, rank,
                      (size_t)q * per, casen);
    }
    size_t span = d.rblock * (size_t)size;
    if (alloc_recv(b, span, span) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    for (int q = 0; q < size; q++) {
        if (k->in_place)
            fill_data(b->r + (size_t)q * d.rblock, d.tc->base, V_PLAIN, &d.tc->rl, (size_t)d.rc, rank,
                      (size_t)q * per, casen);
        fill_data(b->r_exp + (size_t)q * d.rblock, d.tc->base, V_PLAIN, &d.tc->rl, (size_t)d.rc, q,
                  (size_t)rank * per, casen);
    }
    return MPI_SUCCESS;
}

/* allreduce: n in, the reduction of all ranks' n out, everywhere. */
static int setup_allreduce(const ccase *k, int rank, int size, int casen, bufs *b)
{
    const red_case *rc = k->rc;
    size_t n = (size_t)k->count, nb = n * elem_bytes(rc->base, &rc->l);
    if (!k->in_place) {
        if (alloc_send(b, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_data(b->s, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    }
    if (alloc_recv(b, nb, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_data(b->r, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    return expected_reduction(rc, size, n, 0, casen, b->r_exp);
}

/* scan (exscan): n in, the fold of ranks 0..rank (0..rank-1) out; exscan's
 * rank 0 keeps its receive buffer as it was (the sentinel, or in place its
 * input). */
static int setup_scan(const ccase *k, int rank, int casen, int exclusive, bufs *b)
{
    const red_case *rc = k->rc;
    size_t n = (size_t)k->count, nb = n * elem_bytes(rc->base, &rc->l);
    if (!k->in_place) {
        if (alloc_send(b, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        fill_data(b->s, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    }
    if (alloc_recv(b, nb, nb) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    if (k->in_place) fill_data(b->r, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
    if (exclusive && rank == 0) {
        if (k->in_place) fill_data(b->r_exp, rc->base, rc->vk, &rc->l, n, rank, 0, casen);
        return MPI_SUCCESS;
    }
    return expected_reduction(rc, exclusive ? rank : rank + 1, n, 0, casen, b->r_exp);
}

/* The call's counts and types (bcast's receive side set by setup_bcast). */
static void set_call_types(const ccase *k, bufs *b)
{
    b->a.root = k->root;
    b->a.op = MPI_OP_NULL;
    if (is_reduction(k->coll)) {
        b->a.scount = b->a.rcount = k->count;
        b->a.stype = b->a.rtype = k->rc->type;
        b->a.op = k->rc->op;
        b->unit = elem_bytes(k->rc->base, &k->rc->l);
    } else {
        b->a.scount = k->count * k->tc->smul;
        b->a.stype = k->tc->stype;
        b->a.rcount = k->count * k->tc->rmul;
        b->a.rtype = k->tc->rtype;
        b->unit = elem_bytes(k->tc->base, &k->tc->rl);
    }
}

/* Copies of the initial buffers, and the arguments MPI_IN_PLACE stands for. */
static int finish_setup(const ccase *k, int rank, bufs *b)
{
    if (b->s && !(b->s_orig = slot_get(SLOT_S_ORIG, b->sbytes))) return MPI_ERR_NO_MEM;
    if (b->s) memcpy(b->s_orig, b->s, b->sbytes ? b->sbytes : 1);
    if (b->r) {
        if (!(b->r_ref = slot_get(SLOT_R_REF, b->rtotal))) return MPI_ERR_NO_MEM;
        memcpy(b->r_ref, b->r, b->rtotal);
    }
    b->a.sbuf = b->s;
    b->a.rbuf = b->r;
    if (!k->in_place) return MPI_SUCCESS;
    switch (k->coll) {
    case TOPOCOLL_SCATTER: if (rank == k->root) b->a.rbuf = MPI_IN_PLACE; break;
    case TOPOCOLL_GATHER: case TOPOCOLL_REDUCE: if (rank == k->root) b->a.sbuf = MPI_IN_PLACE; break;
    case TOPOCOLL_ALLGATHER: case TOPOCOLL_REDUCE_SCATTER_BLOCK: b->a.sbuf = MPI_IN_PLACE; break;
    case TOPOCOLL_ALLTOALL: b->a.sbuf = MPI_IN_PLACE; break;
    case TOPOCOLL_ALLREDUCE: case TOPOCOLL_REDUCE_SCATTER: case TOPOCOLL_SCAN: case TOPOCOLL_EXSCAN:
        b->a.sbuf = MPI_IN_PLACE;
        break;
    default: break;
    }
    return MPI_SUCCESS;
}

int setup_bufs(const ccase *k, int rank, int size, int casen, bufs *b)
{
    int rc;
    memset(b, 0, sizeof *b);
    set_call_types(k, b);
    switch (k->coll) {
    case TOPOCOLL_ALLGATHER: rc = setup_allgather(k, rank, size, casen, b); break;
    case TOPOCOLL_BCAST: rc = setup_bcast(k, rank, casen, b); break;
    case TOPOCOLL_SCATTER: rc = setup_scatter(k, rank, size, casen, b); break;
    case TOPOCOLL_GATHER: rc = setup_gather(k, rank, size, casen, b); break;
    case TOPOCOLL_REDUCE: rc = setup_reduce(k, rank, size, casen, b); break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: rc = setup_reduce_scatter_block(k, rank, size, casen, b); break;
    case TOPOCOLL_ALLTOALL: rc = setup_alltoall(k, rank, size, casen, b); break;
    case TOPOCOLL_ALLREDUCE: rc = setup_allreduce(k, rank, size, casen, b); break;
    case TOPOCOLL_REDUCE_SCATTER: rc = setup_reduce_scatter(k, rank, size, casen, b); break;
    case TOPOCOLL_SCAN: rc = setup_scan(k, rank, casen, 0, b); break;
    case TOPOCOLL_EXSCAN: rc = setup_scan(k, rank, casen, 1, b); break;
    default: rc = MPI_ERR_INTERN;
    }
    return rc != MPI_SUCCESS ? rc : finish_setup(k, rank, b);
}

/* MPICH before 4.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
 * than 0 once its reduce_scatter_gather algorithm is used (commutative op,
 * more than 2048 bytes): pmodels/mpich#6540, fixed by pmodels/mpich#6543.  There
 * the reference is computed from a copy of the root's input (not in place),
 * and the cases that would call PMPI_Reduce in place themselves ("native",
 * and auto, which may choose it) are skipped. */
int mpich_reduce_in_place_bug(const ccase *k)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000
    return k->coll == TOPOCOLL_REDUCE && k->in_place && k->root != 0 &&
           k->rc->op != g_matmul &&
           (size_t)k->count * (size_t)k->rc->l.nper * base_size(k->rc->base) > 2048;
#else
    (void)k;
    return 0;
#endif
}

