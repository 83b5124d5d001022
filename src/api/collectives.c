/*
 * topocoll_allgather, _bcast, _scatter, _gather, _reduce,
 * _reduce_scatter_block, _allreduce, their _algorithm variants and the generic
 * topocoll_run / topocoll_applicable: one call description, checked,
 * normalised and bound by the collective's descriptor (src/coll/desc.h):
 * only what MPI says is significant on each rank is checked, MPI_IN_PLACE
 * only where MPI allows it; then selection and the executor.
 *
 * Errors that only some ranks see must not hang the others where the MPI
 * library's own collective would not: the communicator is checked first and
 * its context made (collective, on the first call) by every rank, whatever
 * its other arguments; those are checked locally after.  Before a schedule
 * that reduces, every rank asks the MPI library whether it takes the op on
 * the datatype (check_op), so an invalid pair is an error everywhere, not
 * only at the ranks that combine data.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "coll/desc.h"
#include "api/context.h"
#include "api/check.h"
#include "exec/shm_inline.h"
#include "api/node_counts.h"
#include "api/shm_budget.h"
#include "api/explain.h"
#include "api/error.h"
#include "api/stats.h"
#include "core/config.h"

typedef struct call {
    const tc_coll_desc *d;
    const char *fn;
    const void *sbuf;
    int scount;             /* one_count collectives: the one count */
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;               /* 0 for collectives without a root */
    MPI_Comm comm;
    int rank, size;
    int in_place;           /* MPI_IN_PLACE where the descriptor allows it */
    int use[2];             /* [TC_BUF_SEND], [TC_BUF_RECV]: significant here */
    int tsize[2];           /* type sizes of the significant arguments */
    /* per-peer collectives (desc vcounts): the user's vectors; scount and
     * rcount then hold the largest count (what the buffer checks look at) */
    const int *vcnt[2], *vdispl[2];
    int64_t *v64;           /* their 64-bit copies for tc_args.v (4 x size) */
    tc_vcounts v;
    int staged;             /* one block per rank (desc vblock): the user's
                               displacements are not the packed layout, RECV is
                               staged (run_vblock) */
    int mismatch;           /* send and receive signatures differ here: the
                               call runs (so that no peer waits), then fails */
} call;

static const char *const arg_name[2] = { "send", "recv" };

static const void *arg_buf(const call *c, int b) { return b == TC_BUF_SEND ? c->sbuf : c->rbuf; }
static int arg_count(const call *c, int b) { return b == TC_BUF_SEND ? c->scount : c->rcount; }
static MPI_Datatype arg_type(const call *c, int b) { return b == TC_BUF_SEND ? c->stype : c->rtype; }

/* Predefined datatypes and ops cannot be freed, so their handles always
 * mean the same thing; a derived type's or a user op's handle may be
 * reused after a free, so those are looked at again on every call. */
static int is_named(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    return PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

static int is_predefined_op(MPI_Op op)
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
    if (q == MPI_COMM_NULL || is_named(t)) return 1;
    return PMPI_Pack(&in, 0, t, &out, 1, &pos, q) == MPI_SUCCESS;
}

/* Would the MPI library's own reduction take op on type?  Asked of it on
 * one element in scratch memory over the quiet communicator, so every rank
 * (all pass the same op and type) decides alike before any message; its
 * error code (MPI_ERR_OP as a rule) is what this returns, for the caller to
 * raise.  User ops take any type and are not called here. */
static TC_THREAD_LOCAL struct { MPI_Op op; MPI_Datatype type; } op_ok;   /* last pair taken */

static int check_op(const call *c)
{
    union { max_align_t align; char bytes[2][256]; } small;
    MPI_Aint lb = 0, ext = 0;
    int rc, named;
    if (!is_predefined_op(c->op)) return MPI_SUCCESS;
    named = is_named(c->rtype);
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
static int check_buffer(const call *c, int b, int *size)
{
    const void *buf = arg_buf(c, b);
    int count = arg_count(c, b);
    MPI_Datatype type = arg_type(c, b);
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

static int check_comm(call *c)
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

/* MPI's rules, as the descriptor states them: root, op, the significant
 * buffers, equal signatures where both blocks are significant.  Local: the
 * communicator was checked and its context made before (check_comm,
 * tc_ctx_get), so a rank whose arguments are wrong leaves its peers nowhere
 * that the MPI library's own collective would not have taken them. */
/* A per-peer argument: the vectors present, no negative count or
 * displacement; *largest gets the largest count (for the buffer checks). */
static int check_vector(const call *c, int b, int *largest)
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
static int aliased(const call *c)
{
    return c->sbuf == c->rbuf && c->sbuf && (int64_t)c->scount * c->tsize[TC_BUF_SEND] > 0 &&
           (int64_t)c->rcount * c->tsize[TC_BUF_RECV] > 0;
}

static int check_call(call *c)
{
    const tc_coll_desc *d = c->d;
    int rc;
    if (d->vcounts) {   /* per-peer counts: the vectors of the significant arguments */
        int ip = d->vblock || arg_buf(c, d->in_place.arg) == MPI_IN_PLACE;
        if (!ip && (rc = check_vector(c, TC_BUF_SEND, &c->scount)) != MPI_SUCCESS) return rc;
        if ((rc = check_vector(c, TC_BUF_RECV, &c->rcount)) != MPI_SUCCESS) return rc;
    }
    if (d->rooted && (c->root < 0 || c->root >= c->size))
        return tc_raise(c->comm, MPI_ERR_ROOT, "%s: root %d outside 0..%d", c->fn, c->root, c->size - 1);
    if (d->reduction && c->op == MPI_OP_NULL)
        return tc_raise(c->comm, MPI_ERR_OP, "%s: op is MPI_OP_NULL", c->fn);
    c->in_place = tc_coll_in_place_allowed(d, c->rank, c->root) &&
                  arg_buf(c, d->in_place.arg) == MPI_IN_PLACE;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        c->use[b] = tc_coll_significant(d, b, c->rank, c->root, c->in_place);
        if (c->use[b] && (rc = check_buffer(c, b, &c->tsize[b])) != MPI_SUCCESS) return rc;
    }
    if (tc_coll_separate_buffers(d, c->rank, c->root, c->in_place) && aliased(c))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: sendbuf and recvbuf are the same buffer "
                        "(MPI_IN_PLACE is the way to share one)", c->fn);
    c->mismatch = d->same_signature && c->use[TC_BUF_SEND] && c->use[TC_BUF_RECV] &&
        (long long)c->scount * c->tsize[TC_BUF_SEND] != (long long)c->rcount * c->tsize[TC_BUF_RECV];
    if (d->vblock && c->use[TC_BUF_SEND] &&   /* the own block against its receive count */
        (long long)c->scount * c->tsize[TC_BUF_SEND] != (long long)c->vcnt[1][c->rank] * c->tsize[TC_BUF_RECV])
        return tc_raise(c->comm, MPI_ERR_TRUNCATE, "%s: sendcount %d x %d bytes differs from "
                        "recvcounts[%d] = %d x %d bytes", c->fn, c->scount, c->tsize[TC_BUF_SEND], c->rank,
                        c->vcnt[1][c->rank], c->tsize[TC_BUF_RECV]);
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
static int signature_error(const call *c)
{
    return tc_raise(c->comm, MPI_ERR_TRUNCATE, "%s: send and receive signatures differ (%d x %d "
                    "against %d x %d bytes)", c->fn, c->scount, c->tsize[TC_BUF_SEND], c->rcount,
                    c->tsize[TC_BUF_RECV]);
}

/* The counts of equal bytes at or below both sides' (0 when none). */
static void equal_counts(const call *c, int *scount, int *rcount)
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
static int sched_count(const call *c, int b, int count)
{
    return c->use[b] && c->tsize[b] == 0 ? 0 : count;
}

/* The counts the generators see (desc.h), consistent on every rank. */
static void make_args(const call *c, tc_args *a)
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
    if (c->d->vblock && c->v64) {   /* the own block: sendcount, in place RECV's count */
        a->scount = c->in_place ? c->v64[c->rank] : sched_count(c, TC_BUF_SEND, c->scount);
        if (c->staged) a->in_place = 0;   /* SEND is the user's block, RECV the staging */
    }
    int commutative = 1;
    if (c->d->reduction) PMPI_Op_commutative(c->op, &commutative);
    a->commutative = commutative;
}

/* The per-peer vectors in 64 bits (in place: RECV's for both), into
 * c->v; MPI_SUCCESS or MPI_ERR_NO_MEM. */
/* One block per rank (desc vblock): RECV's counts and, as the schedule's
 * layout, their packed prefix sums; staged when a non-empty block's user
 * displacement differs from it. */
static int make_vblock(call *c)
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

static int make_vcounts(call *c)
{
    size_t p = (size_t)c->size;
    if (c->d->vblock) return make_vblock(c);
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

/* Bytes per rank (one block of the significant argument, SEND first): the
 * same on every rank by MPI's rules.  Per-peer counts: this rank's mean part. */
static int64_t bytes_of(const call *c)
{
    int b = c->use[TC_BUF_SEND] && !c->d->vblock ? TC_BUF_SEND : TC_BUF_RECV;
    if (c->d->vcounts) {
        int64_t sum = 0;
        for (int j = 0; j < c->size; j++) sum += c->vcnt[b][j];
        return sum / (c->size ? c->size : 1) * c->tsize[b];
    }
    return (int64_t)arg_count(c, b) * c->tsize[b];
}

/* A datatype whose size an int cannot hold (MPI_Type_size gives
 * MPI_UNDEFINED) is beyond what a schedule can describe: no topocoll
 * algorithm serves the call, the MPI library does. */
static const char *const size_unknown = "a datatype's size exceeds an int";

static int sizes_fit(const call *c)
{
    return (!c->use[TC_BUF_SEND] || c->tsize[TC_BUF_SEND] >= 0) &&
           (!c->use[TC_BUF_RECV] || c->tsize[TC_BUF_RECV] >= 0);
}

/* The choice *al cannot serve the call: native instead, a forced algorithm
 * reported as for any other decline (TOPOCOLL_FALLBACK=error: the error). */
static int native_instead(const tc_ctx *x, const call *c, const tc_algo **al)
{
    int rc;
    const tc_algo *native = tc_catalog_find(c->d->coll, "native");
    int b = c->use[TC_BUF_SEND] ? TC_BUF_SEND : TC_BUF_RECV;
    MPI_Count size = -1;   /* for the explain line only */
    if (PMPI_Type_size_x(arg_type(c, b), &size) != MPI_SUCCESS) size = -1;
    int64_t bytes = arg_count(c, b) * (int64_t)size;
    if (tc_config_get()->force[c->d->coll] &&
        (rc = tc_forced_declined(x, c->comm, c->d->coll, (*al)->name, size_unknown)) != MPI_SUCCESS)
        return rc;
    tc_explain(x, c->d->name, bytes, native->name, size_unknown);
    *al = native;
    return MPI_SUCCESS;
}

/* Bind SEND and RECV; an insignificant buffer takes the other's type so
 * that scratch is typed consistently; in place, the descriptor's alias. */
static int bind(const call *c, const tc_args *a, tc_bind b[TC_NBUF])
{
    int rc, us = c->use[TC_BUF_SEND], ur = c->use[TC_BUF_RECV];
    MPI_Datatype st = us ? c->stype : c->rtype, rt = ur ? c->rtype : c->stype;
    if ((rc = tc_bind_type(&b[TC_BUF_SEND], us ? (void *)c->sbuf : NULL, st)) != MPI_SUCCESS) return rc;
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], ur ? c->rbuf : NULL, rt)) != MPI_SUCCESS) return rc;
    if (!a->in_place) return MPI_SUCCESS;
    int from = c->d->in_place.arg, to = 1 - from;
    MPI_Aint off = (MPI_Aint)tc_coll_pos_elems(c->d->in_place.offset, a, c->rank) * b[to].extent;
    b[from] = b[to];
    b[from].base = b[to].base + off;
    return MPI_SUCCESS;
}

/* ---- the MPI library's own collectives, one per descriptor row ----------- */

typedef int (*native_fn)(const call *c);

static int native_allgather(const call *c)
{
    return PMPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
}

static int native_bcast(const call *c) { return PMPI_Bcast(c->rbuf, c->rcount, c->rtype, c->root, c->comm); }

static int native_scatter(const call *c)
{
    return PMPI_Scatter(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
}

static int native_gather(const call *c)
{
    return PMPI_Gather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
}

static int native_reduce(const call *c)
{
    return PMPI_Reduce(c->sbuf, c->rbuf, c->rcount, c->stype, c->op, c->root, c->comm);
}

static int native_reduce_scatter_block(const call *c)
{
    return PMPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static int native_alltoallv(const call *c)
{
    return PMPI_Alltoallv(c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->vcnt[1], c->vdispl[1],
                          c->rtype, c->comm);
}

static int native_alltoall(const call *c)
{
    return PMPI_Alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
}

/* On one rank, MPICH 4.0's MPI_Allgatherv writes the block at offset 0
 * whatever displs[0] says: the copy is done here instead. */
static int native_allgatherv(const call *c)
{
    if (c->size == 1) {
        MPI_Aint lb = 0, ext = 0;
        int rc = PMPI_Type_get_extent(c->rtype, &lb, &ext);
        if (rc != MPI_SUCCESS || c->in_place || c->vcnt[1][0] == 0) return rc;
        return PMPI_Sendrecv(c->sbuf, c->scount, c->stype, 0, 0, (char *)c->rbuf + (MPI_Aint)c->vdispl[1][0] * ext,
                             c->vcnt[1][0], c->rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
    return PMPI_Allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->vcnt[1], c->vdispl[1], c->rtype,
                           c->comm);
}

static int native_allreduce(const call *c)
{
    return PMPI_Allreduce(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static const native_fn natives[TOPOCOLL_NCOLL] = {
    [TOPOCOLL_ALLGATHER] = native_allgather,
    [TOPOCOLL_BCAST] = native_bcast,
    [TOPOCOLL_SCATTER] = native_scatter,
    [TOPOCOLL_GATHER] = native_gather,
    [TOPOCOLL_REDUCE] = native_reduce,
    [TOPOCOLL_REDUCE_SCATTER_BLOCK] = native_reduce_scatter_block,
    [TOPOCOLL_ALLTOALL] = native_alltoall,
    [TOPOCOLL_ALLTOALLV] = native_alltoallv,
    [TOPOCOLL_ALLREDUCE] = native_allreduce,
    [TOPOCOLL_ALLGATHERV] = native_allgatherv,
};

/* A significant argument whose datatype has size 0 and a count that is not
 * (c->scount / rcount: the largest per-peer count where counts are per peer). */
static int zero_size_data(const call *c, int b)
{
    return c->use[b] && c->tsize[b] == 0 && arg_count(c, b) > 0;
}

/* The MPI library's own collective with every count of a zero-size datatype
 * made 0 (the same empty signature): Open MPI 4.1 and MPICH 4.0 hang in
 * MPI_Allgather, MPI_Gather and MPI_Allgatherv (MPICH also MPI_Alltoall)
 * when one rank says count 1 of a zero-size type and its peer count 0. */
static int run_native_empty(const call *c, native_fn f)
{
    call e = *c;
    int *zeros = NULL, rc;
    if (c->d->vcounts && !(zeros = calloc((size_t)c->size, sizeof *zeros))) return MPI_ERR_NO_MEM;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!zero_size_data(c, b)) continue;
        if (b == TC_BUF_SEND) e.scount = 0;
        else e.rcount = 0;
        if (c->d->vcounts && (b == TC_BUF_RECV || !c->d->vblock)) e.vcnt[b] = zeros;
    }
    rc = f(&e);
    free(zeros);
    return rc;
}

static int run_native(const call *c)
{
    native_fn f = natives[c->d->coll];
    if (!f) return MPI_ERR_INTERN;
    if (zero_size_data(c, TC_BUF_SEND) || zero_size_data(c, TC_BUF_RECV)) return run_native_empty(c, f);
    return f(c);
}

/* The direct entries (TC_REQ_DIRECT): shm_inline of each collective
 * (src/exec/shm_inline.c); one node, so node ranks are the call's ranks. */
static int run_direct(tc_ctx *x, const call *c)
{
    const void *in = c->in_place ? MPI_IN_PLACE : c->sbuf;
    switch (c->d->coll) {
    case TOPOCOLL_ALLREDUCE:
        return tc_shm_inline_allreduce(&x->shm, &x->ws, x->comm, in, c->rbuf, c->rcount, c->rtype, c->op);
    case TOPOCOLL_ALLGATHER:
        return tc_shm_inline_allgather(&x->shm, &x->ws, x->comm, in, c->scount, c->stype, c->rbuf, c->rcount,
                                       c->rtype);
    case TOPOCOLL_BCAST:
        return tc_shm_inline_bcast(&x->shm, &x->ws, x->comm, c->rbuf, c->rcount, c->rtype, c->root);
    case TOPOCOLL_REDUCE:
        return tc_shm_inline_reduce(&x->shm, &x->ws, x->comm, in, c->rbuf, c->rcount, c->rtype, c->op, c->root);
    default:
        return MPI_ERR_INTERN;
    }
}

/* An entry without a schedule: the MPI library's own collective, or a
 * direct protocol (the compositions run with their node's counts). */
static int run_unscheduled(tc_ctx *x, const tc_algo *al, const call *c)
{
    if (al->req & TC_REQ_DIRECT) return run_direct(x, c);
    return run_native(c);
}

/* Schedules that count bytes (bcast) run on the receive buffer: contiguous
 * data in place, anything else packed into a staging buffer at the root and
 * unpacked on the others. */
static int run_bytes(tc_ctx *x, const tc_sched *s, const call *c, const tc_args *a)
{
    tc_bind b[TC_NBUF];
    int rc, packed_data = 0;
    tc_bind user;
    if ((rc = tc_bind_type(&user, c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    char *data = c->rbuf;
    if (!user.contiguous) {   /* a->rcount bytes: may exceed an int */
        if ((rc = tc_workspace_stage(&x->ws, (size_t)a->rcount)) != MPI_SUCCESS) return rc;
        data = x->ws.stage;
        packed_data = 1;
        if (c->rank == c->root &&
            (rc = tc_pack_elems(c->rbuf, c->rcount, &user, data, x->comm)) != MPI_SUCCESS)
            return rc;
    }
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], data, MPI_BYTE)) != MPI_SUCCESS) return rc;
    b[TC_BUF_SEND] = b[TC_BUF_RECV];
    b[TC_BUF_SEND].base = NULL;
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    if ((rc = tc_exec(s, b, &env)) != MPI_SUCCESS) return rc;
    if (packed_data && c->rank != c->root)
        rc = tc_unpack_elems(data, c->rbuf, c->rcount, &user, x->comm);
    return rc;
}

/* One block per rank (allgatherv): RECV is the user's buffer when the
 * user's displacements are the packed layout, else a staging buffer in the
 * receive type whose blocks are copied to their displacements after the
 * schedule; in place, SEND is the own block (RECV's, or the user's at
 * displs[rank] when staged: the schedule was then made without in place). */
static int stage_out(const call *c, const tc_bind *st, const tc_bind *user)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < c->size && rc == MPI_SUCCESS; j++) {
        int n = c->vcnt[1][j];
        if (n <= 0 || (c->in_place && j == c->rank)) continue;
        rc = PMPI_Sendrecv(st->base + c->v.rdispls[j] * st->extent, n, c->rtype, 0, 0,
                           user->base + (MPI_Aint)c->vdispl[1][j] * user->extent, n, c->rtype, 0, 0,
                           MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
    return rc;
}

static int run_vblock(tc_ctx *x, const tc_sched *s, const call *c)
{
    tc_bind b[TC_NBUF], user;
    int rc;
    int64_t total = c->v.rdispls[c->size - 1] + c->v.rcounts[c->size - 1];
    char *mem = NULL;
    if ((rc = tc_bind_type(&user, c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    b[TC_BUF_RECV] = user;
    if (c->staged) {
        if (user.extent <= 0) return run_native(c);   /* no staging layout for it */
        /* from element 0's first byte (true_lb) to the last element's end */
        size_t bytes = (size_t)((total - 1) * user.extent + user.true_extent);
        if (!(mem = malloc(bytes + 1))) return MPI_ERR_NO_MEM;
        b[TC_BUF_RECV].base = mem - user.true_lb;
    }
    if (c->in_place) {   /* the own block where the user left it (staged) or packed */
        int64_t own = c->staged ? c->vdispl[1][c->rank] : c->v.rdispls[c->rank];
        b[TC_BUF_SEND] = user;
        b[TC_BUF_SEND].base = user.base + (MPI_Aint)own * user.extent;
    } else if ((rc = tc_bind_type(&b[TC_BUF_SEND], (void *)c->sbuf, c->stype)) != MPI_SUCCESS) {
        free(mem);
        return rc;
    }
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    rc = tc_exec(s, b, &env);
    if (rc == MPI_SUCCESS && c->staged) rc = stage_out(c, &b[TC_BUF_RECV], &user);
    free(mem);
    return rc;
}

/* Run schedule s for the call. */
static int run_schedule(tc_ctx *x, const tc_sched *s, const call *c, const tc_args *a)
{
    int rc;
    if (c->d->vblock) return run_vblock(x, s, c);
    if (c->d->counts_bytes) return run_bytes(x, s, c, a);
    tc_bind b[TC_NBUF];
    if ((rc = bind(c, a, b)) != MPI_SUCCESS) return rc;
    tc_exec_env env = tc_ctx_env(x, c->d->reduction ? c->op : MPI_OP_NULL);
    return tc_exec(s, b, &env);
}

/* Per-peer counts: the schedule depends on every count, so it is built for
 * the call (O(p) for the flat algorithms) and not cached. */
static int run_uncached(tc_ctx *x, const tc_algo *al, const call *c, const tc_args *a)
{
    if (al->req & TC_REQ_NODE_COUNTS) {   /* the node's counts first, then in bytes */
        tc_node_call nc = { c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->vcnt[1], c->vdispl[1],
                            c->rtype, c->in_place };
        return tc_node_counts_run(x, al, a, &nc);
    }
    tc_sched s;
    tc_sched_init(&s);
    int rc = tc_algo_generate(al, &s, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&s);
    rc = rc ? MPI_ERR_NO_MEM : run_schedule(x, &s, c, a);
    tc_sched_free(&s);
    return rc;
}

/* The schedule cache's key of the call. */
static tc_sched_key key_of(const tc_algo *al, const call *c, const tc_args *a)
{
    const tc_coll_desc *d = c->d;
    MPI_Op op = d->reduction ? c->op : MPI_OP_NULL;
    tc_sched_key key = { al, a->scount, a->rcount, d->counts_bytes ? MPI_BYTE : c->stype,
                         d->counts_bytes ? MPI_BYTE : c->rtype, a->root, a->in_place, op, d->coll,
                         a->commutative };
    return key;
}

/* Run al for the call; *used gets the schedule (NULL for native). */
static int run(tc_ctx *x, const tc_algo *al, const call *c, const tc_args *a, const tc_sched **used)
{
    *used = NULL;
    if (al->req & TC_REQ_NODE_COUNTS) return run_uncached(x, al, c, a);   /* schedule or composition */
    /* topocoll's own reductions check the op on every rank before anything
     * moves (a direct reduce reduces at the root only); the library's own
     * collective checks it itself */
    int rc = MPI_SUCCESS;
    if (c->d->reduction && !(al->req & TC_REQ_NATIVE) && (rc = check_op(c)) != MPI_SUCCESS) return rc;
    if (!al->generate) return run_unscheduled(x, al, c);
    if (c->d->vcounts) return run_uncached(x, al, c, a);
    tc_sched_key key = key_of(al, c, a);
    const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
    if (!s) return rc;
    *used = s;
    return run_schedule(x, s, c, a);
}

/* ---- the fast path: a call repeating the last one's scalars ------------------ */

static void remember(tc_ctx *x, const call *c, const tc_args *a, const tc_algo *al, const tc_sched *s,
                     int named)
{
    tc_call_memo *m = &x->memo[c->d->coll];
    unsigned freed = tc_types_freed();   /* before the watch: a free in between counts */
    int watched = 0;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!c->use[b] || is_named(arg_type(c, b))) continue;
        watched = 1;
        if (tc_watch_type(arg_type(c, b)) != MPI_SUCCESS) {
            m->valid = 0;   /* cannot tell a reused handle: always the full path */
            return;
        }
    }
    *m = (tc_call_memo){ 1, c->scount, c->rcount, c->root, c->in_place, c->stype, c->rtype, c->op,
                         a->commutative, { c->use[0], c->use[1] }, { c->tsize[0], c->tsize[1] },
                         watched, freed, !c->d->reduction || is_predefined_op(c->op),
                         *a, al, named, s, x->cache_epoch, tc_config_get()->generation };
}

/* The memo serves this call: same scalars, buffers that the full checks
 * would pass, no watched derived type freed since (a freed type's handle
 * may come back as another type: its size, whether it is committed and
 * which ops take it were checked on the full path), the same commutativity
 * of a user op, and a schedule still in the cache. */
static int memo_serves(const tc_call_memo *m, const tc_ctx *x, call *c)
{
    if (!m->valid || m->scount != c->scount || m->rcount != c->rcount || m->stype != c->stype ||
        m->rtype != c->rtype || m->root != c->root || m->op != c->op)
        return 0;
    const tc_coll_desc *d = c->d;
    int ip_arg = d->in_place.arg;
    if ((arg_buf(c, ip_arg) == MPI_IN_PLACE && tc_coll_in_place_allowed(d, x->rank, c->root)) !=
        m->in_place)
        return 0;
    if (m->watched && m->types_freed != tc_types_freed()) return 0;
    if (m->use[TC_BUF_SEND] && m->use[TC_BUF_RECV] && c->sbuf == c->rbuf) return 0;   /* aliased: checked */
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!m->use[b]) continue;
        const void *buf = arg_buf(c, b);
        if (buf == MPI_IN_PLACE || (!buf && arg_count(c, b) > 0 && m->tsize[b] > 0)) return 0;
    }
    int commutative = 1;
    if (!m->predefined_op && (PMPI_Op_commutative(c->op, &commutative) != MPI_SUCCESS ||
                              commutative != m->commutative))
        return 0;
    return !m->sched || m->epoch == x->cache_epoch;
}

/* Whether the memo's choice is the one the call asks for: the selection's
 * (algorithm NULL) or the entry named (its catalog name; an alias or a
 * parameter spelled otherwise takes the full path). */
static inline int memo_choice(const tc_call_memo *m, const char *algorithm)
{
    if (!algorithm) return !m->named;
    return m->named && strcmp(m->algo->name, algorithm) == 0;
}

/* Serve the call from its communicator's memo (explain off): 1 with *rc
 * set, or 0 to take the full path.  cfg: the configuration in force;
 * algorithm: the entry named, or NULL for the selection's. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int fast_call(call *c, const tc_config *cfg, const char *algorithm, int *rc)
{
    /* with TOPOCOLL_EXPLAIN every call explains itself on the full path, but
     * topocoll's own calls (the calibration's timed ones) explain nothing and
     * must cost what they cost without it */
    if (c->comm == MPI_COMM_NULL || ((cfg->explain || cfg->check_on) && !tc_explain_is_quiet())) return 0;
    tc_ctx *x = tc_ctx_lookup(c->comm);
    if (!x) return 0;
    const tc_call_memo *m = &x->memo[c->d->coll];
    if (m->config_gen != cfg->generation || !m->valid || !memo_choice(m, algorithm) ||
        !memo_serves(m, x, c))
        return 0;
    c->rank = x->rank;
    c->size = x->size;
    c->in_place = m->in_place;
    c->use[0] = m->use[0], c->use[1] = m->use[1];
    c->tsize[0] = m->tsize[0], c->tsize[1] = m->tsize[1];
    tc_record_algorithm(m->algo->name);
    *rc = m->sched ? run_schedule(x, m->sched, c, &m->args) : run_unscheduled(x, m->algo, c);
    if (*rc != MPI_SUCCESS) *rc = tc_raise_mpi(c->comm, *rc, c->fn);
    return 1;
}

/* Single copy (cross-memory attach): probed per context; the entries read
 * the user's buffers as dense bytes, so derived types with holes decline. */
static void set_cma(const call *c, const tc_ctx *x, tc_args *a)
{
    a->cma = x->shm.cma.ok;
    a->cma_why = a->cma ? NULL : x->shm.cma.why;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV && a->cma; b++)
        if (c->use[b] && !tc_cma_type_ok(arg_type(c, b))) {
            a->cma = 0;
            a->cma_why = "the single-copy entries need contiguous datatypes";
        }
}

/* A call by selection that the MPI library serves without a context
 * (tc_ctx_for_call): checked as any other, then its own collective. */
static int run_without_context(call *c)
{
    int rc = check_call(c);
    if (rc != MPI_SUCCESS) return rc;
    tc_explain_native(c->d->name, c->size, c->rank, bytes_of(c), c->size == 1 ?
                      "one rank: no context" : "a new communicator's first calls: no context yet");
    rc = run_native(c);
    if (c->mismatch) return signature_error(c);   /* whatever the erroneous call ran into */
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* ---- node-shared memory within its budget (src/api/shm_budget.h) ------------ */

/* The element sizes of SEND and RECV as bound (bind: an insignificant
 * buffer takes the other's type; byte schedules count bytes). */
static void bound_sizes(const call *c, int64_t esz[2])
{
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        esz[b] = c->d->counts_bytes ? 1 : c->use[b] ? c->tsize[b] : c->tsize[1 - b];
}

/* Collectives whose data split into element ranges, each a call of its
 * own (tc_coll_elementwise), with buffers that can be offset (a NULL
 * buffer with absolute addresses in its type cannot). */
static int separable(const call *c)
{
    if (!tc_coll_elementwise(c->d)) return 0;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        if (c->use[b] && !arg_buf(c, b)) return 0;
    return 1;
}

/* n elements of a separable call from element off; ext: the types' extents. */
static call piece_of(const call *c, int64_t off, int n, const MPI_Aint ext[2], tc_ctx *x, const tc_args *a,
                     tc_args *pa)
{
    call p = *c;
    p.scount = p.rcount = n;
    if (c->use[TC_BUF_SEND] && c->sbuf != MPI_IN_PLACE) p.sbuf = (const char *)c->sbuf + off * ext[0];
    if (c->use[TC_BUF_RECV]) p.rbuf = (char *)c->rbuf + off * ext[1];
    make_args(&p, pa);
    pa->node_shm = a->node_shm;
    pa->load = a->load;
    set_cma(&p, x, pa);
    return p;
}

/* Elements per piece whose need (bytes per half, *need) fits half, or 0
 * when none does or the entry declines a piece (the last one included). */
static int64_t piece_elems(tc_ctx *x, const tc_algo *al, const call *c, const tc_args *a, const int64_t esz[2],
                           int64_t half, int64_t *need)
{
    const MPI_Aint ext[2] = { 0, 0 };
    const char *why;
    tc_args pa;
    int64_t n = c->rcount, m = (int64_t)((double)n * (double)half / (double)*need);
    for (int tries = 0; tries < 8 && m > 0; tries++) {
        if (m >= 128) m -= m % 64;   /* pieces of whole cache lines for most types */
        (void)piece_of(c, 0, (int)m, ext, x, a, &pa);
        if (!tc_algo_accepts(al, &pa, x->topo, &why)) return 0;
        int64_t pn = tc_shm_need(al, &pa, x->topo, esz);
        if (pn < 0) return 0;
        if (pn <= half) {
            (void)piece_of(c, 0, (int)(n % m ? n % m : m), ext, x, a, &pa);
            *need = pn;
            return tc_algo_accepts(al, &pa, x->topo, &why) ? m : 0;
        }
        m = (int64_t)((double)m * (double)half / (double)pn) - 1;
    }
    return 0;
}

/* The call again among the algorithms without node-shared memory. */
static int reselect_without_shm(tc_ctx *x, const call *c, tc_args *a, int64_t bytes, const tc_algo **al,
                                const char *why)
{
    const char *forced = tc_config_get()->force[c->d->coll];
    a->node_shm = 0;
    int rc;
    if (forced && (rc = tc_forced_declined(x, c->comm, c->d->coll, forced, why)) != MPI_SUCCESS)
        return rc;   /* TOPOCOLL_FALLBACK=error (agreed: the budget's plan is) */
    rc = tc_choose(x, a, bytes, c->comm, al);
    if (rc == MPI_SUCCESS && (*al)->generate && !sizes_fit(c)) rc = native_instead(x, c, al);
    return rc;
}

/* A node-shared entry within the budget: *piece 0 runs the call whole,
 * else in pieces of that many elements; the windows made before (every
 * rank of the communicator alike).  Neither fits, or the windows cannot be
 * had: *al becomes an algorithm without node-shared memory. */
static int shm_plan(tc_ctx *x, const call *c, tc_args *a, int64_t bytes, const tc_algo **al, int64_t *piece)
{
    *piece = 0;
    if (!((*al)->req & TC_REQ_NODE_SHM) || !a->node_shm) return MPI_SUCCESS;
    int64_t esz[2], half = (int64_t)(tc_shm_budget() / 2);
    bound_sizes(c, esz);
    int64_t need;
    int rc;
    if ((*al)->generate && x->topo->nnodes == 1 && !c->d->vcounts && bytes <= half) {
        /* one node, likely whole: the schedule the call runs (cached) has the need */
        tc_sched_key key = key_of(*al, c, a);
        const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
        if (!s) return rc;
        need = s->shm_count * esz[s->tmp_like == TC_BUF_RECV];
    } else if ((need = tc_shm_need(*al, a, x->topo, esz)) < 0) {
        return MPI_ERR_NO_MEM;
    }
    if (need > half && (!separable(c) || (*piece = piece_elems(x, *al, c, a, esz, half, &need)) == 0))
        return reselect_without_shm(x, c, a, bytes, al, "its node-shared window exceeds TOPOCOLL_SHM_BUDGET");
    if ((*al)->req & TC_REQ_DIRECT) {   /* its slots: made and agreed on in the call (one node) */
        x->shm.failed_bytes = 0;
        return MPI_SUCCESS;
    }
    int ok;
    if ((rc = tc_shm_budget_prepare(x, need, c->d->coll, &ok)) != MPI_SUCCESS || ok) return rc;
    *piece = 0;
    return reselect_without_shm(x, c, a, bytes, al, "node-shared memory could not be had");
}

/* A separable call in pieces of m elements. */
static int run_pieces(tc_ctx *x, const tc_algo *al, const call *c, const tc_args *a, int64_t m)
{
    MPI_Aint lb, ext[2] = { 0, 0 };
    int rc = MPI_SUCCESS;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        if (c->use[b] && (rc = PMPI_Type_get_extent(arg_type(c, b), &lb, &ext[b])) != MPI_SUCCESS) return rc;
    for (int64_t off = 0; off < c->rcount && rc == MPI_SUCCESS; off += m) {
        tc_args pa;
        const tc_sched *s;
        call p = piece_of(c, off, (int)(c->rcount - off < m ? c->rcount - off : m), ext, x, a, &pa);
        rc = run(x, al, &p, &pa, &s);
    }
    return rc;
}

/* The whole call: checks, context, choice (by_name: the named algorithm,
 * else TOPOCOLL_<COLL> or the selection table).  Inlined into collective()
 * so that the summary's test adds no call on the way. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int call_collective(call *c, const tc_config *cfg, int by_name, const char *algorithm)
{
    int rc;
    if (fast_call(c, cfg, by_name ? (algorithm ? algorithm : "") : NULL, &rc)) return rc;
    /* the context first (collective over comm, made on its first call), so
     * that every rank of a valid communicator takes part, even one whose
     * other arguments are wrong; those are checked locally after */
    if ((rc = check_comm(c)) != MPI_SUCCESS) return rc;
    tc_ctx *x;
    /* by name or under TOPOCOLL_CHECK: the full context at once */
    rc = by_name || cfg->check_on ? tc_ctx_get(c->comm, &x)
                                  : tc_ctx_for_call(c->comm, c->d->coll, c->size, &x);
    if (rc != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (!x) return run_without_context(c);
    if ((rc = check_call(c)) != MPI_SUCCESS)   /* TOPOCOLL_CHECK: the others learn of it */
        return cfg->check_on ? tc_check_failed(x, c->comm, c->fn, c->d, rc) : rc;
    if (c->d->vcounts && (rc = make_vcounts(c)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    tc_args a;
    call cut = *c;   /* a mismatch: the counts of equal bytes (see signature_error) */
    if (c->mismatch) {
        equal_counts(c, &cut.scount, &cut.rcount);
        if (cut.scount == 0 && cut.rcount == 0)
            return cfg->check_on ? tc_check_failed(x, c->comm, c->fn, c->d, signature_error(c)) : signature_error(c);
    }
    make_args(&cut, &a);
    a.node_shm = x->node_shm;
    a.load = x->load.load;
    set_cma(c, x, &a);
    int64_t bytes = bytes_of(c);
    const char *name = c->d->name;
    const tc_algo *al = NULL;
    if (by_name) {
        const char *why = "";
        al = tc_catalog_find(c->d->coll, algorithm);
        if (!al)
            return tc_raise(c->comm, MPI_ERR_ARG, "no %s algorithm named '%s'", name,
                            algorithm ? algorithm : "(null)");
        if (!tc_algo_accepts(al, &a, x->topo, &why))
            return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' declines: %s", name, al->name, why);
        if (al->generate && !sizes_fit(c))
            return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' declines: %s", name, al->name,
                            size_unknown);
        tc_explain(x, name, bytes, al->name, "requested by name");
    } else if ((rc = tc_choose(x, &a, bytes, c->comm, &al)) != MPI_SUCCESS) {
        return rc;
    } else if (al->generate && !sizes_fit(c) && (rc = native_instead(x, c, &al)) != MPI_SUCCESS) {
        return rc;
    }
    if (cfg->check_on && !tc_explain_is_quiet() &&   /* TOPOCOLL_CHECK: every rank agrees, or fails */
        (rc = tc_check(x, c->comm, &(tc_check_call){ c->fn, c->d, al, c->root, c->op, c->rtype,
            { c->scount, c->rcount }, { c->tsize[0], c->tsize[1] }, { c->use[0], c->use[1] },
            { c->vcnt[0], c->vcnt[1] }, c->in_place })) != MPI_SUCCESS)
        return rc;
    /* (the check first: a rank whose arguments failed joins it, not the
     * plan's agreement; the plan's inputs are agreed, so is its outcome) */
    int64_t piece;
    if ((rc = shm_plan(x, &cut, &a, bytes, &al, &piece)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (piece > 0) {   /* not remembered: every such call plans again */
        if (cfg->explain) {
            char why[96];
            snprintf(why, sizeof why, "in pieces of %lld elements: TOPOCOLL_SHM_BUDGET", (long long)piece);
            tc_explain(x, name, bytes, al->name, why);
        }
        rc = run_pieces(x, al, c, &a, piece);
        return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
    }
    const tc_sched *s;
    /* the MPI library's own collective gets the user's counts */
    rc = run(x, al, al->generate || (al->req & TC_REQ_COMPOSED) ? &cut : c, &a, &s);
    if (rc != MPI_SUCCESS && (al->req & TC_REQ_DIRECT) && tc_shm_budget_failed(x, c->d->coll) &&
        (rc = reselect_without_shm(x, c, &a, bytes, &al, "node-shared memory could not be had")) == MPI_SUCCESS)
        rc = run(x, al, al->generate || (al->req & TC_REQ_COMPOSED) ? &cut : c, &a, &s);   /* nothing moved yet */
    if (c->mismatch) return signature_error(c);   /* whatever the erroneous call ran into */
    if (rc != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (!c->d->vcounts) remember(x, c, &a, al, s, by_name);   /* per-peer: no memo */
    return rc;
}

/* The call timed and counted for the run summary (TOPOCOLL_STATS): the
 * algorithm that served it (this thread's last), its bytes, its time. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int counted_collective(call *c, const tc_config *cfg, int by_name, const char *algorithm)
{
    uint64_t t0 = tc_stats_now();
    int rc = call_collective(c, cfg, by_name, algorithm);
    uint64_t t1 = tc_stats_now();
    if (rc == MPI_SUCCESS && !tc_explain_is_quiet())   /* topocoll's own calls are not the caller's */
        tc_stats_record(c->d->coll, c->size, topocoll_last_algorithm(), bytes_of(c), t1 - t0);
    return rc;
}

/* Every call: one test of the summary's flag, no timing when it is off
 * (the configuration read here is the one the fast path uses). */
static int collective(call *c, int by_name, const char *algorithm)
{
    const tc_config *cfg = tc_config_get();
#if defined(__GNUC__)
    if (__builtin_expect(cfg->stats_on, 0)) return counted_collective(c, cfg, by_name, algorithm);
#else
    if (cfg->stats_on) return counted_collective(c, cfg, by_name, algorithm);
#endif
    return call_collective(c, cfg, by_name, algorithm);
}

/* ---- the public entry points: describe the call, then run it ---------------- */

/* One call in the generic form of topocoll_run (one_count collectives: the
 * receive count and type stand for both; no root: 0). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline call make_call(topocoll_coll coll, const char *fn, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                             MPI_Op op, int root, MPI_Comm comm)
{
    call c;   /* every field set here: a zeroing of the whole struct cost
                 more than the stores on the 8-byte calls' path */
    c.d = tc_coll_desc_of(coll);
    c.fn = fn;
    c.sbuf = sbuf;
    c.scount = c.d->one_count ? rcount : scount;
    c.stype = c.d->one_count ? rtype : stype;
    c.rbuf = rbuf;
    c.rcount = rcount;
    c.rtype = rtype;
    c.op = op;
    c.root = c.d->rooted ? root : 0;
    c.comm = comm;
    c.rank = c.size = c.in_place = 0;
    c.use[0] = c.use[1] = c.tsize[0] = c.tsize[1] = 0;
    c.vcnt[0] = c.vcnt[1] = c.vdispl[0] = c.vdispl[1] = NULL;
    c.v64 = NULL;
    c.v = (tc_vcounts){ NULL, NULL, NULL, NULL };
    c.staged = c.mismatch = 0;
    return c;
}

#define ALLGATHER_CALL(FN) make_call(TOPOCOLL_ALLGATHER, FN, sendbuf, sendcount, sendtype, \
                                     recvbuf, recvcount, recvtype, MPI_OP_NULL, 0, comm)
#define BCAST_CALL make_call(TOPOCOLL_BCAST, "topocoll_bcast", NULL, 0, type, buf, count, type, \
                             MPI_OP_NULL, root, comm)
#define SCATTER_CALL make_call(TOPOCOLL_SCATTER, "topocoll_scatter", sendbuf, sendcount, sendtype, \
                               recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define GATHER_CALL make_call(TOPOCOLL_GATHER, "topocoll_gather", sendbuf, sendcount, sendtype, \
                              recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define REDUCE_CALL make_call(TOPOCOLL_REDUCE, "topocoll_reduce", sendbuf, count, type, recvbuf, \
                              count, type, op, root, comm)
/* reduce_scatter_block's input is p blocks of recvcount: the call records
 * one block (what the argument checks need) and the normalisation widens it. */
#define RSB_CALL make_call(TOPOCOLL_REDUCE_SCATTER_BLOCK, "topocoll_reduce_scatter_block", sendbuf, \
                           recvcount, type, recvbuf, recvcount, type, op, 0, comm)

#define ALLREDUCE_CALL make_call(TOPOCOLL_ALLREDUCE, "topocoll_allreduce", sendbuf, count, type, \
                                 recvbuf, count, type, op, 0, comm)

static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm);

int topocoll_run(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    if (!tc_coll_desc_of(coll))
        return tc_raise(comm, MPI_ERR_ARG, "topocoll_run: unknown collective %d", (int)coll);
    if (tc_coll_desc_of(coll)->vcounts)   /* per-peer collectives: the regular problem */
        return run_regular(coll, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    call c = make_call(coll, "topocoll_run", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, op, root, comm);
    return collective(&c, algorithm != NULL, algorithm);
}

/* applicable(), once the context is there. */
static int applicable_call(call *c, tc_ctx *x, const tc_algo *al, const char **why)
{
    if (check_call(c) != MPI_SUCCESS || c->mismatch || (c->d->vcounts && make_vcounts(c) != MPI_SUCCESS)) {
        if (why) *why = "invalid arguments";
        return 0;
    }
    tc_args a;
    make_args(c, &a);
    a.node_shm = x->node_shm;
    a.load = x->load.load;
    set_cma(c, x, &a);
    if (al->generate && !sizes_fit(c)) {
        if (why) *why = size_unknown;
        return 0;
    }
    return tc_algo_accepts(al, &a, x->topo, why);
}

/* Would the algorithm serve these arguments?  fn names the public caller. */
static int applicable(topocoll_coll coll, const char *fn, const char *algorithm, int sendcount,
                      MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, MPI_Op op,
                      int root, MPI_Comm comm, const char **why)
{
    const tc_algo *al = tc_coll_desc_of(coll) ? tc_catalog_find(coll, algorithm) : NULL;
    if (!al) return -1;
    /* any non-NULL buffers, two of them: only the sizes matter */
    static char two[2];
    call c = make_call(coll, fn, &two[0], sendcount, sendtype, &two[1], recvcount, recvtype, op,
                       root, comm);
    tc_ctx *x;
    if (check_comm(&c) != MPI_SUCCESS) {
        if (why) *why = "invalid communicator";
        return 0;
    }
    if (tc_ctx_get(comm, &x) != MPI_SUCCESS) {
        if (why) *why = "no topology for this communicator";
        return 0;
    }
    int *equal = NULL, ok;   /* allgatherv: judged with every count recvcount, packed */
    if (c.d->vblock && (equal = malloc(2 * (size_t)c.size * sizeof *equal + 1)) != NULL) {
        for (int j = 0; j < c.size; j++) equal[j] = recvcount, equal[c.size + j] = j * recvcount;
        c.vcnt[1] = equal, c.vdispl[1] = equal + c.size;
    } else if (c.d->vcounts && (equal = malloc(4 * (size_t)c.size * sizeof *equal + 1)) != NULL) {
        /* alltoallv: judged on the regular problem, as topocoll_run runs it */
        for (int j = 0; j < c.size; j++)
            equal[j] = sendcount, equal[c.size + j] = j * sendcount, equal[2 * c.size + j] = recvcount,
            equal[3 * c.size + j] = j * recvcount;
        c.vcnt[0] = equal, c.vdispl[0] = equal + c.size;
        c.vcnt[1] = equal + 2 * c.size, c.vdispl[1] = equal + 3 * c.size;
    }
    ok = applicable_call(&c, x, al, why);
    free(equal);
    free(c.v64);
    return ok;
}

int topocoll_applicable(topocoll_coll coll, const char *algorithm, int sendcount,
                        MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, MPI_Op op,
                        int root, MPI_Comm comm, const char **why)
{
    return applicable(coll, "topocoll_applicable", algorithm, sendcount, sendtype, recvcount,
                      recvtype, op, root, comm, why);
}

int topocoll_allgather_applicable(const char *algorithm, int sendcount, MPI_Datatype sendtype,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  const char **why)
{
    return applicable(TOPOCOLL_ALLGATHER, "topocoll_allgather_applicable", algorithm, sendcount,
                      sendtype, recvcount, recvtype, MPI_OP_NULL, 0, comm, why);
}

int topocoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLGATHER_CALL("topocoll_allgather");
    return collective(&c, 0, NULL);
}

int topocoll_allgather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLGATHER_CALL("topocoll_allgather_algorithm");
    return collective(&c, 1, algorithm);
}

int topocoll_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    call c = BCAST_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_bcast_algorithm(const char *algorithm, void *buf, int count, MPI_Datatype type,
                             int root, MPI_Comm comm)
{
    call c = BCAST_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = SCATTER_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_scatter_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = SCATTER_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = GATHER_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_gather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = GATHER_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm)
{
    call c = REDUCE_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_reduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    call c = REDUCE_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    call c = RSB_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_reduce_scatter_block_algorithm(const char *algorithm, const void *sendbuf,
                                            void *recvbuf, int recvcount, MPI_Datatype type,
                                            MPI_Op op, MPI_Comm comm)
{
    call c = RSB_CALL;
    return collective(&c, 1, algorithm);
}

/* ---- alltoall ----------------------------------------------------------------- */

#define ALLTOALL_CALL make_call(TOPOCOLL_ALLTOALL, "topocoll_alltoall", sendbuf, sendcount, sendtype, \
                                recvbuf, recvcount, recvtype, MPI_OP_NULL, 0, comm)

int topocoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLTOALL_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_alltoall_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLTOALL_CALL;
    return collective(&c, 1, algorithm);
}

/* ---- alltoallv ----------------------------------------------------------------- */

static int alltoallv(const char *fn, const char *algorithm, const void *sendbuf, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                     const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = make_call(TOPOCOLL_ALLTOALLV, fn, sendbuf, 0, sendtype, recvbuf, 0, recvtype, MPI_OP_NULL,
                       0, comm);
    c.vcnt[0] = sendcounts, c.vdispl[0] = sdispls;
    c.vcnt[1] = recvcounts, c.vdispl[1] = rdispls;
    int rc = collective(&c, algorithm != NULL, algorithm);
    free(c.v64);
    return rc;
}

int topocoll_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("topocoll_alltoallv", NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm);
}

int topocoll_alltoallv_algorithm(const char *algorithm, const void *sendbuf, const int *sendcounts,
                                 const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                 const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
    if (!algorithm) return topocoll_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                              rdispls, recvtype, comm);
    return alltoallv("topocoll_alltoallv_algorithm", algorithm, sendbuf, sendcounts, sdispls, sendtype,
                     recvbuf, recvcounts, rdispls, recvtype, comm);
}

/* ---- allgatherv ----------------------------------------------------------------- */

static int allgatherv(const char *fn, const char *algorithm, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = make_call(TOPOCOLL_ALLGATHERV, fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype,
                       MPI_OP_NULL, 0, comm);
    c.vcnt[1] = recvcounts, c.vdispl[1] = displs;
    int rc = collective(&c, algorithm != NULL, algorithm);
    free(c.v64);
    return rc;
}

int topocoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("topocoll_allgatherv", NULL, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm);
}

int topocoll_allgatherv_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                  const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!algorithm) return topocoll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                               recvtype, comm);
    return allgatherv("topocoll_allgatherv_algorithm", algorithm, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm);
}

/* ---- allreduce ------------------------------------------------------------------ */

int topocoll_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    call c = ALLREDUCE_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_allreduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    call c = ALLREDUCE_CALL;
    return collective(&c, 1, algorithm);
}

/* ---- topocoll_run for the per-peer collectives ------------------------------ */

/* The regular problem: every count sendcount (send) and recvcount (receive),
 * displacements j x count, as the benchmark's; then the collective's own
 * entry, which checks everything else (an invalid communicator too: the
 * vectors are then not made and its check comes first). */
static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    int p = 0, *v = NULL, rc;
    if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &p) == MPI_SUCCESS && p > 0) {
        if ((int64_t)(p - 1) * (sendcount > recvcount ? sendcount : recvcount) > INT_MAX)
            return tc_raise(comm, MPI_ERR_COUNT, "topocoll_run: displacements of %d x count exceed an int", p);
        if (!(v = malloc(4 * (size_t)p * sizeof *v))) return tc_raise(comm, MPI_ERR_NO_MEM, "topocoll_run");
        for (int j = 0; j < p; j++)
            v[j] = sendcount, v[p + j] = j * sendcount, v[2 * p + j] = recvcount, v[3 * p + j] = j * recvcount;
    }
    const int *sc = v, *sd = v ? v + p : NULL, *rcn = v ? v + 2 * p : NULL, *rd = v ? v + 3 * p : NULL;
    if (coll == TOPOCOLL_ALLTOALLV)
        rc = alltoallv("topocoll_run", algorithm, sendbuf, sc, sd, sendtype, recvbuf, rcn, rd, recvtype, comm);
    else
        rc = allgatherv("topocoll_run", algorithm, sendbuf, sendcount, sendtype, recvbuf, rcn, rd, recvtype, comm);
    free(v);
    return rc;
}
