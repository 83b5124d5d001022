/*
 * TOPOCOLL_CHECK (see check.h).
 *
 * Steps, per call (collective over the context's private duplicate, so no
 * message of the application's can match them):
 *   1. per-peer counts (alltoallv) only: an alltoall of the bytes this rank
 *      sends to each peer; each receiver compares them with the bytes it
 *      expects and notes the first pair that differs;
 *   2. one MPI_MIN allreduce of F fields and their complements (2 F
 *      uint64: the minimum and the maximum of every field at once): the
 *      chosen algorithm's catalog index, root, op, the reduction's datatype,
 *      the bytes of a block sent and received, a hash of the receive counts
 *      where every rank must pass the same ones (allgatherv), the first
 *      mismatched pair;
 *   A rank whose own argument checks failed (its error raised already)
 *   takes part in step 2 with a flag and its error class, where the others
 *   reach their check without communicating first (not allreduce, whose
 *   first call may calibrate, nor alltoallv), so they fail with its class
 *   instead of waiting for it;
 *   3. only where a field differs (every rank sees the same result, so all
 *      take this step or none): one more MPI_MIN allreduce of two ints names
 *      the lowest rank holding the smallest and the largest value (or, for a
 *      pair, a broadcast from the receiver of the two byte counts), and
 *      every rank raises the same error.
 * Cost: step 2 is one reduction of 2 F x 8 bytes per call (measured in
 * docs/design.md, "Agreement"); step 1 adds an alltoall of p int64 to
 * alltoallv.  Memory: O(p) for step 1 only.  Restrictions: a user op is
 * compared as "a user op" (its handle means nothing on another rank), a
 * derived datatype by its size.
 */
#include "api/check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "core/config.h"

enum { F_LOCAL, F_ROOT, F_OP, F_TYPE, F_SEND, F_RECV, F_VRECV, F_PAIR, F_ALGO, NF };

static const char *const what[NF] = {
    "",
    "root", "op", "datatype", "sendcount (bytes per block)", "recvcount (bytes per block)",
    "recvcounts vector", "", "algorithm",
};

static const int err_class[NF] = {
    MPI_ERR_ARG,
    MPI_ERR_ROOT, MPI_ERR_OP, MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_COUNT, MPI_ERR_COUNT, MPI_ERR_COUNT,
    MPI_ERR_OTHER,
};

/* ---- identities that mean the same on every rank ------------------------------ */

#define OPS(X) X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) X(MPI_LOR) X(MPI_BOR) \
    X(MPI_LXOR) X(MPI_BXOR) X(MPI_MINLOC) X(MPI_MAXLOC) X(MPI_REPLACE) X(MPI_NO_OP)
#define TYPES(X) X(MPI_CHAR) X(MPI_SIGNED_CHAR) X(MPI_UNSIGNED_CHAR) X(MPI_BYTE) X(MPI_SHORT) \
    X(MPI_UNSIGNED_SHORT) X(MPI_INT) X(MPI_UNSIGNED) X(MPI_LONG) X(MPI_UNSIGNED_LONG) X(MPI_LONG_LONG) \
    X(MPI_UNSIGNED_LONG_LONG) X(MPI_FLOAT) X(MPI_DOUBLE) X(MPI_LONG_DOUBLE) X(MPI_INT8_T) X(MPI_INT16_T) \
    X(MPI_INT32_T) X(MPI_INT64_T) X(MPI_UINT8_T) X(MPI_UINT16_T) X(MPI_UINT32_T) X(MPI_UINT64_T) \
    X(MPI_C_BOOL) X(MPI_WCHAR) X(MPI_FLOAT_INT) X(MPI_DOUBLE_INT) X(MPI_LONG_INT) X(MPI_2INT) \
    X(MPI_SHORT_INT) X(MPI_LONG_DOUBLE_INT) X(MPI_C_FLOAT_COMPLEX) X(MPI_C_DOUBLE_COMPLEX) X(MPI_AINT) \
    X(MPI_OFFSET) X(MPI_COUNT)
#define HANDLE(h) h,
#define NAME(h) #h,

enum { USER_OP = 1000, OTHER_TYPE = 1u << 20, DERIVED_TYPE = 1u << 21 };

/* 1 + the op's index among the predefined ones, USER_OP for any other. */
static uint64_t op_id(MPI_Op op)
{
    const MPI_Op ops[] = { OPS(HANDLE) };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] == op) return i + 1;
    return USER_OP;
}

static const char *op_name(uint64_t id)
{
    static const char *const names[] = { OPS(NAME) };
    return id >= 1 && id <= sizeof names / sizeof names[0] ? names[id - 1] : "a user op";
}

/* 1 + the index of a predefined datatype; others: a flag and their size. */
static uint64_t type_id(MPI_Datatype t, int size)
{
    const MPI_Datatype types[] = { TYPES(HANDLE) };
    int ni, na, nd, combiner = MPI_COMBINER_NAMED;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i] == t) return i + 1;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS) combiner = -1;
    return (combiner == MPI_COMBINER_NAMED ? OTHER_TYPE : DERIVED_TYPE) + (uint64_t)(size > 0 ? size : 0);
}

static void type_text(uint64_t id, char *buf, size_t len)
{
    static const char *const names[] = { TYPES(NAME) };
    if (id >= 1 && id <= sizeof names / sizeof names[0]) snprintf(buf, len, "%s", names[id - 1]);
    else if (id & DERIVED_TYPE) snprintf(buf, len, "a derived type of %llu bytes", (unsigned long long)(id - DERIVED_TYPE));
    else snprintf(buf, len, "a predefined type of %llu bytes", (unsigned long long)(id - OTHER_TYPE));
}

static uint64_t algo_index(const tc_check_call *k)
{
    int n = tc_catalog_variant_count(k->d->coll);
    for (int i = 0; i < n; i++)
        if (tc_catalog_variant_at(k->d->coll, i) == k->algo) return (uint64_t)i;
    return (uint64_t)n;
}

/* ---- this rank's fields ------------------------------------------------------ */

/* Bytes of one block of argument b, or of the other where b is not
 * significant here (an in-place root: the receive block stands for both). */
static uint64_t block_bytes(const tc_check_call *k, int b)
{
    if (!k->use[b]) b = 1 - b;
    if (!k->use[b]) return 0;
    return (uint64_t)((int64_t)k->count[b] * k->tsize[b]);
}

/* FNV-1a over the receive blocks' bytes (allgatherv, reduce_scatter: the same
 * vector at every rank). */
static uint64_t vrecv_hash(const tc_check_call *k, int p)
{
    uint64_t h = 1469598103934665603ull;
    for (int j = 0; j < p; j++) {
        uint64_t v = (uint64_t)((int64_t)k->vcnt[TC_BUF_RECV][j] * k->tsize[TC_BUF_RECV]);
        for (int s = 0; s < 64; s += 8) h = (h ^ ((v >> s) & 0xff)) * 1099511628211ull;
    }
    return h;
}

/* Per-peer counts: what each peer sends here against what this rank
 * expects from it; *code gets me * p + the first sender that differs
 * (p * p when none), sent[] the bytes each peer sends here. */
static int pairs(tc_ctx *x, const tc_check_call *k, int64_t *sent, uint64_t *code)
{
    int p = x->size, s = k->in_place ? TC_BUF_RECV : TC_BUF_SEND;
    int64_t *mine = malloc(2 * (size_t)p * sizeof *mine + 1);
    if (!mine) return MPI_ERR_NO_MEM;
    for (int j = 0; j < p; j++) mine[j] = (int64_t)k->vcnt[s][j] * k->tsize[s];
    int rc = PMPI_Alltoall(mine, 1, MPI_INT64_T, sent, 1, MPI_INT64_T, x->comm);
    *code = (uint64_t)p * (uint64_t)p;
    for (int j = 0; rc == MPI_SUCCESS && j < p; j++)
        if (sent[j] != (int64_t)k->vcnt[TC_BUF_RECV][j] * k->tsize[TC_BUF_RECV]) {
            *code = (uint64_t)x->rank * (uint64_t)p + (uint64_t)j;
            break;
        }
    free(mine);
    return rc;
}

static void fields(const tc_ctx *x, const tc_check_call *k, uint64_t v[NF])
{
    const tc_coll_desc *d = k->d;
    memset(v, 0, NF * sizeof *v);
    v[F_PAIR] = (uint64_t)x->size * (uint64_t)x->size;   /* no pair differs (pairs() for alltoallv) */
    v[F_ALGO] = algo_index(k);
    v[F_ROOT] = d->rooted ? (uint64_t)k->root : 0;
    v[F_OP] = d->reduction ? op_id(k->op) : 0;
    v[F_TYPE] = d->reduction ? type_id(k->type, k->tsize[k->use[TC_BUF_RECV] ? TC_BUF_RECV : TC_BUF_SEND]) : 0;
    if (!d->vcounts) {
        v[F_SEND] = block_bytes(k, TC_BUF_SEND);
        v[F_RECV] = block_bytes(k, TC_BUF_RECV);
    } else if (d->vblock || d->vsplit) {
        v[F_VRECV] = vrecv_hash(k, x->size);
    }
}

/* ---- the report ------------------------------------------------------------- */

/* Two ranks that differ in field f: the lowest holding the minimum and the
 * lowest holding the maximum. */
static int who(tc_ctx *x, uint64_t mine, uint64_t lo, uint64_t hi, int r[2])
{
    int in[2] = { mine == lo ? x->rank : x->size, mine == hi ? x->rank : x->size };
    return PMPI_Allreduce(in, r, 2, MPI_INT, MPI_MIN, x->comm);
}

static void value_text(const tc_check_call *k, int f, uint64_t v, char *buf, size_t len)
{
    if (f == F_OP) snprintf(buf, len, "%s", op_name(v));
    else if (f == F_TYPE) type_text(v, buf, len);
    else if (f == F_ALGO) {
        const tc_algo *al = tc_catalog_variant_at(k->d->coll, (int)v);
        snprintf(buf, len, "%s", al ? al->name : "?");
    } else if (f == F_VRECV) snprintf(buf, len, "hash %016llx", (unsigned long long)v);
    else snprintf(buf, len, "%llu", (unsigned long long)v);
}

static int report_field(tc_ctx *x, MPI_Comm comm, const tc_check_call *k, int f, uint64_t mine, uint64_t lo,
                        uint64_t hi)
{
    int r[2];
    int rc = who(x, mine, lo, hi, r);
    if (rc != MPI_SUCCESS) return tc_raise_mpi(comm, rc, k->fn);
    char a[80], b[80];
    value_text(k, f, lo, a, sizeof a);
    value_text(k, f, hi, b, sizeof b);
    int lo_first = r[0] < r[1];
    return tc_raise(comm, err_class[f], "check: %s: %s differs between ranks (rank %d: %s, rank %d: %s)", k->fn,
                    what[f], lo_first ? r[0] : r[1], lo_first ? a : b, lo_first ? r[1] : r[0], lo_first ? b : a);
}

/* A rank that found its own arguments invalid (hi: (its rank + 1) << 32 |
 * its error class, the highest such rank's): the others fail with its class. */
static int report_local(tc_ctx *x, MPI_Comm comm, const tc_check_call *k, int own_rc, uint64_t hi, int quiet)
{
    (void)x;
    int rank = (int)(hi >> 32) - 1, cls = (int)(hi & 0xffffffffu);
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (quiet) return own_rc;
    if (PMPI_Error_string(cls, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "class %d", cls);
    return tc_raise(comm, cls, "check: %s: rank %d found its arguments invalid (%s)", k->fn, rank, s);
}

/* The first mismatched pair: its receiver tells the bytes sent and expected. */
static int report_pair(tc_ctx *x, MPI_Comm comm, const tc_check_call *k, uint64_t code, const int64_t *sent)
{
    int p = x->size, recv = (int)(code / (uint64_t)p), from = (int)(code % (uint64_t)p);
    int64_t b[2] = { 0, 0 };
    if (x->rank == recv) b[0] = sent[from], b[1] = (int64_t)k->vcnt[TC_BUF_RECV][from] * k->tsize[TC_BUF_RECV];
    int rc = PMPI_Bcast(b, 2, MPI_INT64_T, recv, x->comm);
    if (rc != MPI_SUCCESS) return tc_raise_mpi(comm, rc, k->fn);
    return tc_raise(comm, MPI_ERR_COUNT, "check: %s: send and receive counts differ between ranks (rank %d "
                    "sends %lld bytes to rank %d, which expects %lld)", k->fn, from, (long long)b[0], recv,
                    (long long)b[1]);
}

/* The reduction and the report; own_rc: this rank's own argument error,
 * already raised (MPI_SUCCESS: none), which it returns instead of the
 * report's after taking its part in it. */
static int agree(tc_ctx *x, MPI_Comm comm, const tc_check_call *k, uint64_t v[NF], const int64_t *sent,
                 int own_rc)
{
    uint64_t all[2 * NF];
    for (int f = 0; f < NF; f++) all[f] = v[f], all[NF + f] = ~v[f];
    int rc = PMPI_Allreduce(MPI_IN_PLACE, all, 2 * NF, MPI_UINT64_T, MPI_MIN, x->comm);
    if (rc != MPI_SUCCESS) return own_rc != MPI_SUCCESS ? own_rc : tc_raise_mpi(comm, rc, k->fn);
    for (int f = 0; f < NF && rc == MPI_SUCCESS; f++) {
        uint64_t lo = all[f], hi = ~all[NF + f];
        if (f == F_LOCAL && hi && own_rc != MPI_SUCCESS) rc = report_local(x, comm, k, own_rc, hi, 1);
        else if (f == F_LOCAL && hi) rc = report_local(x, comm, k, own_rc, hi, 0);
        else if (f == F_PAIR && lo < (uint64_t)x->size * (uint64_t)x->size) rc = report_pair(x, comm, k, lo, sent);
        else if (f != F_PAIR && f != F_LOCAL && lo != hi) rc = report_field(x, comm, k, f, v[f], lo, hi);
    }
    return own_rc != MPI_SUCCESS ? own_rc : rc;
}

static int malformed(MPI_Comm comm)
{
    const tc_config *cfg = tc_config_get();
    return tc_raise(comm, MPI_ERR_ARG, "TOPOCOLL_CHECK=%s: expected 0 or 1", cfg->check);
}

int tc_check(tc_ctx *x, MPI_Comm comm, const tc_check_call *k)
{
    if (tc_config_get()->check_on < 0) return malformed(comm);
    uint64_t v[NF], code = 0;
    int64_t *sent = NULL;
    int rc = MPI_SUCCESS;
    fields(x, k, v);
    if (k->d->vcounts && !k->d->vblock && !k->d->vsplit && !k->d->vroot) {   /* alltoallv: every pair's counts */
        if (!(sent = malloc((size_t)x->size * sizeof *sent + 1))) return tc_raise(comm, MPI_ERR_NO_MEM, "%s", k->fn);
        rc = pairs(x, k, sent, &code);
        v[F_PAIR] = code;
    }
    rc = rc == MPI_SUCCESS ? agree(x, comm, k, v, sent, MPI_SUCCESS) : tc_raise_mpi(comm, rc, k->fn);
    free(sent);
    return rc;
}

int tc_check_failed(tc_ctx *x, MPI_Comm comm, const char *fn, const tc_coll_desc *d, int own_rc)
{
    int cls = MPI_ERR_OTHER;
    if (tc_config_get()->check_on < 0) return own_rc;   /* the call fails either way */
    /* where the others may communicate before their check (the one-node
     * allreduce's calibration, alltoallv's pairs and size), no part to take */
    if (d->coll == TOPOCOLL_ALLREDUCE || d->vcounts) return own_rc;
    if (PMPI_Error_class(own_rc, &cls) != MPI_SUCCESS || cls <= 0) cls = MPI_ERR_OTHER;
    tc_check_call k = { fn, d, NULL, 0, MPI_OP_NULL, MPI_DATATYPE_NULL, { 0, 0 }, { 0, 0 }, { 0, 0 },
                        { NULL, NULL }, 0 };
    uint64_t v[NF];
    memset(v, 0, sizeof v);
    v[F_LOCAL] = (uint64_t)x->rank << 32 | (uint64_t)cls;   /* + 1 below: 0 means none */
    v[F_LOCAL] += (uint64_t)1 << 32;
    v[F_PAIR] = (uint64_t)x->size * (uint64_t)x->size;
    return agree(x, comm, &k, v, NULL, own_rc);
}
