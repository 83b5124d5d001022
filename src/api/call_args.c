/*
 * The argument record's checks and normalisation (see call.h): MPI's rules
 * for a collective call, as its descriptor (src/coll/desc.h) states them:
 * only what MPI says is significant on each rank is checked, MPI_IN_PLACE
 * only where MPI allows it; then the counts the generators see (tc_args),
 * consistent on every rank.  The checks complete the record once: in place,
 * the significant buffers, their type sizes, the per-peer vectors, whether
 * the signatures differ, the message's bytes.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "core/thread_local.h"
#include "api/error.h"
#include "exec/cma.h"

static const char *const arg_name[2] = { "send", "recv" };

/* A datatype whose size an int cannot hold (MPI_Type_size gives
 * MPI_UNDEFINED) is beyond what a schedule can describe: no topocoll
 * algorithm serves the call, the MPI library does. */
const char *const tc_call_size_unknown = "a datatype's size exceeds an int";

/* Predefined datatypes and ops cannot be freed, so their handles always
 * mean the same thing; a derived type's or a user op's handle may be
 * reused after a free, so those are looked at again on every call. */
int tc_call_type_named(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    return PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

int tc_call_op_predefined(MPI_Op op)
{
    const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                           MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] == op) return 1;
    return 0;
}

/* An uncommitted derived type: MPI_Pack of no element refuses it in both
 * MPI libraries (its size and extents do not), asked on the quiet
 * communicator so that no handler of the application's runs. */
static int committed(MPI_Datatype t)
{
    char in = 0, out = 0;
    int pos = 0;
    MPI_Comm q = tc_quiet_self();
    if (q == MPI_COMM_NULL || tc_call_type_named(t)) return 1;
    return PMPI_Pack(&in, 0, t, &out, 1, &pos, q) == MPI_SUCCESS;
}

/* Would the MPI library's own reduction take op on type?  Asked of it on
 * one element in scratch memory over the quiet communicator, so every rank
 * (all pass the same op and type) decides alike before any message; its
 * error code (MPI_ERR_OP as a rule) is what this returns, for the caller to
 * raise.  User ops take any type and are not called here. */
static TC_THREAD_LOCAL struct { MPI_Op op; MPI_Datatype type; } op_ok;   /* last pair taken */

int tc_call_check_op(const tc_call *c)
{
    union { max_align_t align; char bytes[2][256]; } small;
    MPI_Aint lb = 0, ext = 0;
    int rc, named;
    if (!tc_call_op_predefined(c->op)) return MPI_SUCCESS;
    named = tc_call_type_named(c->rtype);
    /* predefined op and type: handles that always mean the same */
    if (named && op_ok.op == c->op && op_ok.type == c->rtype) return MPI_SUCCESS;
    if ((rc = PMPI_Type_get_true_extent(c->rtype, &lb, &ext)) != MPI_SUCCESS) return rc;
    size_t need = ext > 0 ? (size_t)ext : 1;
    char *in = small.bytes[0], *out = small.bytes[1], *heap = NULL;
    if (need > sizeof small.bytes[0]) {
        if (!(heap = calloc(2, need))) return MPI_ERR_NO_MEM;
        in = heap;
        out = heap + need;
    } else {
        memset(&small, 0, sizeof small);
    }
    rc = tc_quiet_reduce(in - lb, out - lb, c->rtype, c->op);
    free(heap);
    if (rc == MPI_SUCCESS && named) op_ok.op = c->op, op_ok.type = c->rtype;
    return rc;
}

/* One significant argument; *size gets its type size. */
static int check_buffer(const tc_call *c, int b, int *size)
{
    const void *buf = tc_call_buf(c, b);
    int count = tc_call_count(c, b);
    MPI_Datatype type = tc_call_type(c, b);
    const char *what = arg_name[b];
    MPI_Aint lb = 0, ext = 0;
    *size = 0;
    if (count < 0) return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative %scount %d", c->fn, what, count);
    if (type == MPI_DATATYPE_NULL)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: %stype is MPI_DATATYPE_NULL", c->fn, what);
    if (PMPI_Type_size(type, size) != MPI_SUCCESS)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: invalid %stype", c->fn, what);
    if (!committed(type))
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: %stype is not committed", c->fn, what);
    if (buf == MPI_IN_PLACE)
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed as %sbuf here", c->fn, what);
    if (!buf && count > 0 && *size > 0 &&
        !(PMPI_Type_get_true_extent(type, &lb, &ext) == MPI_SUCCESS && lb != 0))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: %sbuf is NULL with %scount %d", c->fn, what, what, count);
    return MPI_SUCCESS;
}

int tc_call_check_comm(tc_call *c)
{
    int inter = 0;
    if (c->comm == MPI_COMM_NULL) return tc_raise(c->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", c->fn);
    if (PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS)
        return tc_raise(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator", c->fn);
    if (inter) return tc_raise(c->comm, MPI_ERR_COMM, "%s: inter-communicators are not supported", c->fn);
    PMPI_Comm_rank(c->comm, &c->rank);
    PMPI_Comm_size(c->comm, &c->size);
    return MPI_SUCCESS;
}

/* A per-peer argument: the vectors present, no negative count or
 * displacement; *largest gets the largest count (for the buffer checks). */
static int check_vector(const tc_call *c, int b, int *largest)
{
    const int *cnt = c->vcnt[b], *dsp = c->vdispl[b];
    *largest = 0;
    if (!cnt || !dsp)
        return tc_raise(c->comm, MPI_ERR_ARG, "%s: %scounts or %sdispls is NULL", c->fn, arg_name[b], arg_name[b]);
    for (int j = 0; j < c->size; j++) {
        if (cnt[j] < 0)
            return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative %scounts[%d] = %d", c->fn, arg_name[b], j, cnt[j]);
        if (dsp[j] < 0)
            return tc_raise(c->comm, MPI_ERR_ARG, "%s: negative %sdispls[%d] = %d", c->fn, arg_name[b], j, dsp[j]);
        if (cnt[j] > *largest) *largest = cnt[j];
    }
    return MPI_SUCCESS;
}

/* SEND and RECV at one address, both holding data (MPI_BOTTOM / NULL
 * excluded: absolute-address types may describe separate data from it). */
static int aliased(const tc_call *c)
{
    return c->sbuf == c->rbuf && c->sbuf && (int64_t)c->scount * c->tsize[TC_BUF_SEND] > 0 &&
           (int64_t)c->rcount * c->tsize[TC_BUF_RECV] > 0;
}

/* Bytes per rank (one block of the significant argument, SEND first): the
 * same on every rank by MPI's rules.  Per-peer counts: this rank's mean part. */
static int64_t bytes_of(const tc_call *c)
{
    int b = c->use[TC_BUF_SEND] && !c->d->vblock && !c->d->vsplit ? TC_BUF_SEND : TC_BUF_RECV;
    if (c->d->vroot) {   /* this rank's one block (in place at the root: the vector's) */
        int own = c->d->vroot == TC_VROOT_GATHER ? TC_BUF_SEND : TC_BUF_RECV;
        if (c->use[own]) return (int64_t)tc_call_count(c, own) * c->tsize[own];
        return c->vcnt[1 - own] ? (int64_t)c->vcnt[1 - own][c->rank] * c->tsize[1 - own] : 0;
    }
    if (c->d->vcounts) {
        int64_t sum = 0;
        for (int j = 0; j < c->size; j++) sum += c->vcnt[b][j];
        return sum / (c->size ? c->size : 1) * c->tsize[b];
    }
    return (int64_t)tc_call_count(c, b) * c->tsize[b];
}

/* The counts of the vector split among the ranks (reduce_scatter): present,
 * none negative; both counts get the largest. */
static int check_vsplit(tc_call *c)
{
    const int *cnt = c->vcnt[TC_BUF_RECV];
    c->rcount = 0;
    if (!cnt) return tc_raise(c->comm, MPI_ERR_ARG, "%s: recvcounts is NULL", c->fn);
    for (int j = 0; j < c->size; j++) {
        if (cnt[j] < 0) return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative recvcounts[%d] = %d", c->fn, j, cnt[j]);
        if (cnt[j] > c->rcount) c->rcount = cnt[j];
    }
    c->scount = c->rcount;
    return MPI_SUCCESS;
}

/* The per-peer vectors of the significant arguments. */
static int check_vectors(tc_call *c)
{
    const tc_coll_desc *d = c->d;
    if (d->vsplit) return check_vsplit(c);
    if (d->vroot) {   /* the root's vector only (MPI reads it nowhere else) */
        int b = d->vroot == TC_VROOT_GATHER ? TC_BUF_RECV : TC_BUF_SEND;
        if (c->root < 0 || c->root >= c->size || c->rank != c->root) return MPI_SUCCESS;
        return check_vector(c, b, b == TC_BUF_SEND ? &c->scount : &c->rcount);
    }
    int rc, ip = d->vblock || tc_call_buf(c, d->in_place.arg) == MPI_IN_PLACE;
    if (!ip && (rc = check_vector(c, TC_BUF_SEND, &c->scount)) != MPI_SUCCESS) return rc;
    return check_vector(c, TC_BUF_RECV, &c->rcount);
}

/* One block per rank: the own block against its receive count. */
static int check_own_block(const tc_call *c)
{
    if (!c->d->vblock || !c->use[TC_BUF_SEND] ||
        (long long)c->scount * c->tsize[TC_BUF_SEND] == (long long)c->vcnt[1][c->rank] * c->tsize[TC_BUF_RECV])
        return MPI_SUCCESS;
    return tc_raise(c->comm, MPI_ERR_TRUNCATE, "%s: sendcount %d x %d bytes differs from "
                    "recvcounts[%d] = %d x %d bytes", c->fn, c->scount, c->tsize[TC_BUF_SEND], c->rank,
                    c->vcnt[1][c->rank], c->tsize[TC_BUF_RECV]);
}

/* Local: the communicator was checked and its context made before
 * (tc_call_check_comm, tc_ctx_get), so a rank whose arguments are wrong
 * leaves its peers nowhere that the MPI library's own collective would not
 * have taken them. */
/* MPI_Exscan's recvbuf is not significant at rank 0 (MPI leaves it
 * undefined there), so a program may pass NULL; the schedules may still use
 * it as their workspace at rank 0, so a NULL one becomes scratch of this
 * thread's (kept for the next such call). */
static int exscan_rank0_recv(tc_call *c)
{
    static TC_THREAD_LOCAL char *scratch;
    static TC_THREAD_LOCAL size_t have;
    MPI_Aint lb, extent, tlb, textent;
    if (c->d->prefix != TC_PREFIX_EXCLUSIVE || c->rank != 0 || c->rbuf != NULL || c->rcount <= 0 ||
        c->sbuf == MPI_IN_PLACE || c->rtype == MPI_DATATYPE_NULL)
        return MPI_SUCCESS;
    if (PMPI_Type_get_extent(c->rtype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(c->rtype, &tlb, &textent) != MPI_SUCCESS)
        return MPI_SUCCESS;   /* an invalid datatype: the checks below say so */
    size_t need = (size_t)((c->rcount - 1) * (extent > 0 ? extent : 0) + (textent > 0 ? textent : 0)) + 1;
    if (need > have) {
        char *n = realloc(scratch, need);
        if (!n) return tc_raise(c->comm, MPI_ERR_NO_MEM, "%s: no scratch for rank 0's recvbuf", c->fn);
        scratch = n;
        have = need;
    }
    c->rbuf = scratch - tlb;
    return MPI_SUCCESS;
}

int tc_call_check(tc_call *c)
{
    const tc_coll_desc *d = c->d;
    int rc;
    if ((rc = exscan_rank0_recv(c)) != MPI_SUCCESS) return rc;
    if (d->vcounts && (rc = check_vectors(c)) != MPI_SUCCESS) return rc;
    if (d->rooted && (c->root < 0 || c->root >= c->size))
        return tc_raise(c->comm, MPI_ERR_ROOT, "%s: root %d outside 0..%d", c->fn, c->root, c->size - 1);
    if (d->reduction && c->op == MPI_OP_NULL)
        return tc_raise(c->comm, MPI_ERR_OP, "%s: op is MPI_OP_NULL", c->fn);
    c->in_place = tc_coll_in_place_allowed(d, c->rank, c->root) &&
                  tc_call_buf(c, d->in_place.arg) == MPI_IN_PLACE;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        c->use[b] = tc_coll_significant(d, b, c->rank, c->root, c->in_place);
        if (c->use[b] && (rc = check_buffer(c, b, &c->tsize[b])) != MPI_SUCCESS) return rc;
    }
    if (tc_coll_separate_buffers(d, c->rank, c->root, c->in_place) && aliased(c))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: sendbuf and recvbuf are the same buffer "
                        "(MPI_IN_PLACE is the way to share one)", c->fn);
    c->mismatch = d->same_signature && c->use[TC_BUF_SEND] && c->use[TC_BUF_RECV] &&
        (long long)c->scount * c->tsize[TC_BUF_SEND] != (long long)c->rcount * c->tsize[TC_BUF_RECV];
    if ((rc = check_own_block(c)) != MPI_SUCCESS) return rc;
    c->bytes = bytes_of(c);
    return MPI_SUCCESS;
}

/* ---- send and receive signatures that differ at this rank ----------------
 * The user's error (MPI_ERR_TRUNCATE), but the peers' messages to and from
 * this rank are under way: like the MPI library's own collective, the call
 * takes part, then fails.  The schedules see both counts cut to the bytes
 * both sides hold (so that no local copy writes past a region and a
 * receive posted here truncates what the peers send), so do the composed
 * entries; the MPI library's own collective gets the user's counts.  Where
 * the cut leaves nothing to move, the call fails at once as before. */
int tc_call_signature_error(const tc_call *c)
{
    return tc_raise(c->comm, MPI_ERR_TRUNCATE, "%s: send and receive signatures differ (%d x %d "
                    "against %d x %d bytes)", c->fn, c->scount, c->tsize[TC_BUF_SEND], c->rcount,
                    c->tsize[TC_BUF_RECV]);
}

void tc_call_equal_counts(const tc_call *c, int *scount, int *rcount)
{
    int64_t ss = c->tsize[TC_BUF_SEND], rs = c->tsize[TC_BUF_RECV];
    int64_t sc = c->scount, rc = c->rcount;
    while (ss > 0 && rs > 0 && sc * ss != rc * rs) {
        int64_t bytes = sc * ss < rc * rs ? sc * ss : rc * rs;
        sc = bytes / ss;
        rc = bytes / rs;
    }
    *scount = ss > 0 && rs > 0 ? (int)sc : 0;
    *rcount = ss > 0 && rs > 0 ? (int)rc : 0;
}

/* A count of a zero-size datatype moves no byte: the schedules see 0, as
 * for a count 0 of any type, so that a peer describing the same empty
 * block as count 0 expects the same (no) message. */
static int sched_count(const tc_call *c, int b, int count)
{
    return c->use[b] && c->tsize[b] == 0 ? 0 : count;
}

void tc_call_make_args(const tc_call *c, tc_args *a)
{
    memset(a, 0, sizeof *a);
    a->coll = c->d->coll;
    a->rank = c->rank;
    a->size = c->size;
    a->root = c->root;
    a->in_place = c->in_place;
    tc_coll_normalize(c->d, a, sched_count(c, TC_BUF_SEND, c->scount), sched_count(c, TC_BUF_RECV, c->rcount),
                      c->tsize[TC_BUF_RECV]);
    a->relem_bytes = c->d->counts_bytes ? 1 : c->tsize[TC_BUF_RECV];
    if (c->d->vcounts) a->v = &c->v;
    if (c->d->vroot) {   /* the vector at the root only; in place, the root's block is the vector's */
        int own = c->d->vroot == TC_VROOT_GATHER ? TC_BUF_SEND : TC_BUF_RECV;
        int64_t *n = own == TC_BUF_SEND ? &a->scount : &a->rcount;
        a->v = c->v64 ? &c->v : NULL;
        if (c->in_place && c->v64) *n = c->v64[c->rank];
        if (c->staged) a->in_place = 0;   /* the vector buffer is the staging, the own block the user's */
    }
    if (c->d->vblock && c->v64) {   /* the own block: sendcount, in place RECV's count */
        a->scount = c->in_place ? c->v64[c->rank] : sched_count(c, TC_BUF_SEND, c->scount);
        if (c->staged) a->in_place = 0;   /* SEND is the user's block, RECV the staging */
    }
    if (c->d->vsplit && c->v64)   /* the vector; rcount stays the largest block */
        a->scount = c->v64[2 * c->size - 1] + c->v64[c->size - 1];
    int commutative = 1;
    if (c->d->reduction) PMPI_Op_commutative(c->op, &commutative);
    a->commutative = commutative;
}

/* Single copy (cross-memory attach): probed per context; the entries read
 * the user's buffers as dense bytes, so derived types with holes decline. */
static void set_cma(const tc_call *c, const tc_ctx *x, tc_args *a)
{
    a->cma = x->shm.cma.ok;
    a->cma_why = a->cma ? NULL : x->shm.cma.why;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV && a->cma; b++)
        if (c->use[b] && !tc_cma_type_ok(tc_call_type(c, b))) {
            a->cma = 0;
            a->cma_why = "the single-copy entries need contiguous datatypes";
        }
}

void tc_call_make_ctx_args(const tc_call *c, const tc_ctx *x, tc_args *a)
{
    tc_call_make_args(c, a);
    a->node_shm = x->node_shm;
    a->load = x->load.load;
    set_cma(c, x, a);
}

int tc_call_sizes_fit(const tc_call *c)
{
    return (!c->use[TC_BUF_SEND] || c->tsize[TC_BUF_SEND] >= 0) &&
           (!c->use[TC_BUF_RECV] || c->tsize[TC_BUF_RECV] >= 0);
}

/* One block per rank (desc vblock): RECV's counts and, as the schedule's
 * layout, their packed prefix sums; staged when a non-empty block's user
 * displacement differs from it. */
static int make_vblock(tc_call *c)
{
    size_t p = (size_t)c->size;
    int64_t at = 0;
    if (!(c->v64 = malloc(2 * p * sizeof *c->v64 + 1))) return MPI_ERR_NO_MEM;
    c->staged = 0;
    for (size_t j = 0; j < p; j++) {
        c->v64[j] = sched_count(c, TC_BUF_RECV, c->vcnt[1][j]);
        c->v64[p + j] = at;
        if (c->v64[j] > 0 && c->vdispl[1][j] != at) c->staged = 1;
        at += c->v64[j];
    }
    c->v = (tc_vcounts){ NULL, NULL, c->v64, c->v64 + p };
    return MPI_SUCCESS;
}

/* The vector split among the ranks (desc vsplit): RECV's counts and their
 * packed prefix sums, the blocks' places in the vector. */
static int make_vsplit(tc_call *c)
{
    size_t p = (size_t)c->size;
    int64_t at = 0;
    if (!(c->v64 = malloc(2 * p * sizeof *c->v64 + 1))) return MPI_ERR_NO_MEM;
    for (size_t j = 0; j < p; j++) {
        c->v64[j] = sched_count(c, TC_BUF_RECV, c->vcnt[1][j]);
        c->v64[p + j] = at;
        at += c->v64[j];
    }
    c->v = (tc_vcounts){ NULL, NULL, c->v64, c->v64 + p };
    return MPI_SUCCESS;
}

/* One block per rank between the root and every rank (desc vroot): at the
 * root, its vector's counts and, as the schedule's layout, their packed
 * prefix sums (staged when a non-empty block's displacement differs);
 * elsewhere nothing (v64 NULL). */
static int make_vroot(tc_call *c)
{
    size_t p = (size_t)c->size;
    int b = c->d->vroot == TC_VROOT_GATHER ? TC_BUF_RECV : TC_BUF_SEND;
    int64_t at = 0;
    c->staged = 0;
    if (c->rank != c->root) return MPI_SUCCESS;
    if (!(c->v64 = malloc(2 * p * sizeof *c->v64 + 1))) return MPI_ERR_NO_MEM;
    for (size_t j = 0; j < p; j++) {
        c->v64[j] = sched_count(c, b, c->vcnt[b][j]);
        c->v64[p + j] = at;
        if (c->v64[j] > 0 && c->vdispl[b][j] != at) c->staged = 1;
        at += c->v64[j];
    }
    c->v = b == TC_BUF_RECV ? (tc_vcounts){ NULL, NULL, c->v64, c->v64 + p }
                            : (tc_vcounts){ c->v64, c->v64 + p, NULL, NULL };
    return MPI_SUCCESS;
}

/* In place: RECV's vectors for both; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int tc_call_make_vcounts(tc_call *c)
{
    size_t p = (size_t)c->size;
    if (c->d->vroot) return make_vroot(c);
    if (c->d->vblock) return make_vblock(c);
    if (c->d->vsplit) return make_vsplit(c);
    if (!(c->v64 = malloc(4 * p * sizeof *c->v64 + 1))) return MPI_ERR_NO_MEM;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        int from = c->in_place ? TC_BUF_RECV : b;
        for (size_t j = 0; j < p; j++) {
            c->v64[(2 * b) * p + j] = sched_count(c, from, c->vcnt[from][j]);
            c->v64[(2 * b + 1) * p + j] = c->vdispl[from][j];
        }
    }
    c->v = (tc_vcounts){ c->v64, c->v64 + p, c->v64 + 2 * p, c->v64 + 3 * p };
    return MPI_SUCCESS;
}
