/* The MPI executor (see exec_mpi.h). */
#include "exec/exec_mpi.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backoff.h"
#include "exec/membind.h"
#include "exec/reduce_kernels.h"
#include "exec/shm_inline.h"

#define TC_TAG 7  /* on the private communicator: no user message can match */

/* The bytes of a predefined C scalar type (0: another type): its layout
 * without asking the MPI library, whose three calls a binding are a
 * visible part of an 8-byte call. */
static int scalar_bytes(MPI_Datatype t)
{
    if (t == MPI_BYTE || t == MPI_CHAR || t == MPI_SIGNED_CHAR || t == MPI_UNSIGNED_CHAR) return 1;
    if (t == MPI_INT || t == MPI_UNSIGNED) return (int)sizeof(int);
    if (t == MPI_DOUBLE) return (int)sizeof(double);
    if (t == MPI_FLOAT) return (int)sizeof(float);
    if (t == MPI_LONG || t == MPI_UNSIGNED_LONG) return (int)sizeof(long);
    if (t == MPI_LONG_LONG || t == MPI_UNSIGNED_LONG_LONG) return (int)sizeof(long long);
    return 0;
}

int tc_bind_type(tc_bind *b, void *base, MPI_Datatype type)
{
    MPI_Aint lb;
    int rc, bytes = scalar_bytes(type);
    b->base = base;
    b->type = type;
    b->packed = 0;
    if (bytes) {
        b->extent = b->true_extent = bytes;
        b->true_lb = 0;
        b->size = bytes;
        b->contiguous = 1;
        return MPI_SUCCESS;
    }
    if ((rc = PMPI_Type_get_extent(type, &lb, &b->extent)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Type_get_true_extent(type, &b->true_lb, &b->true_extent)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Type_size(type, &b->size)) != MPI_SUCCESS) return rc;
    b->contiguous = b->true_lb == 0 && (MPI_Aint)b->size == b->extent &&
                    b->true_extent == b->extent;
    return MPI_SUCCESS;
}

static int grow(void **p, size_t *have, size_t need)
{
    if (*have >= need) return MPI_SUCCESS;
    void *n = realloc(*p, need);
    if (!n) return MPI_ERR_NO_MEM;
    *p = n;
    *have = need;
    return MPI_SUCCESS;
}

int tc_exec_bind_tmp(const tc_sched *s, tc_bind bind[TC_NBUF], tc_workspace *ws)
{
    tc_bind *t = &bind[TC_BUF_TMP];
    *t = bind[s->tmp_like];
    t->base = NULL;
    if (s->tmp_count == 0) return MPI_SUCCESS;
    size_t bytes = (size_t)(t->true_extent + (s->tmp_count - 1) * t->extent);
    int rc = grow((void **)&ws->tmp, &ws->tmp_bytes, bytes);
    if (rc) return rc;
    t->base = ws->tmp - t->true_lb;
    return MPI_SUCCESS;
}

/* SHM holds tmp_like's elements packed; reserve (collective over the node
 * the first time and when growing) and take this call's half. */
int tc_exec_bind_shm(const tc_sched *s, tc_bind bind[TC_NBUF], tc_shm *sh)
{
    tc_bind *b = &bind[TC_BUF_SHM];
    *b = bind[s->tmp_like];
    b->base = NULL;
    b->packed = 1;
    b->extent = b->size;
    if (!s->uses_shm) return MPI_SUCCESS;
    size_t bytes = (size_t)s->shm_count * (size_t)b->size;
    int created = 0, rc = tc_shm_reserve(sh, bytes, &created);
    if (rc != MPI_SUCCESS) return rc;
    if (created && s->shm_home_cnt > 0)   /* place our part in our NUMA domain */
        for (int h = 0; h < 2; h++)
            tc_bind_memory_local(sh->data + (size_t)h * sh->half + (size_t)s->shm_home_off * b->size,
                                 (size_t)s->shm_home_cnt * b->size);
    b->base = tc_shm_next_half(sh);
    return MPI_SUCCESS;
}

static inline char *addr(const tc_bind *b, const tc_region *g)
{
    return b->base + g->off * b->extent;
}

/* ---- regions beyond MPI's int counts ---------------------------------------
 * A region of more elements (or, packed, more bytes) than an int counts is
 * described by one datatype made for the message: q blocks of a contiguous
 * type of k elements (at most 2^30 bytes, so that no MPI sees a block size
 * beyond an int), then the r elements left.  Its signature is n times the
 * element's whatever the blocking, so it matches the peer's own description
 * (another element type, or MPI_PACKED) as n plain elements would.  Only
 * such regions pay for it: the datatype is made and freed around the one
 * call (MPI keeps it alive for a pending request). */
#define TC_BIG_BLOCK_BYTES ((int64_t)1 << 30)
#define TC_SELF_TAG 8   /* local copies through MPI (on the private communicator) */

/* A committed datatype for n elements of type t (size bytes, extent ext)
 * from offset 0. */
static int big_type(MPI_Datatype t, int size, MPI_Aint ext, int64_t n, MPI_Datatype *out)
{
    int64_t k = size > 0 && size < TC_BIG_BLOCK_BYTES ? TC_BIG_BLOCK_BYTES / size : 1;
    int64_t q = n / k, r = n % k;
    MPI_Datatype block;
    int rc = PMPI_Type_contiguous((int)k, t, &block);
    if (rc != MPI_SUCCESS) return rc;
    int lens[2] = { (int)q, (int)r };
    MPI_Aint disp[2] = { 0, (MPI_Aint)(q * k) * ext };
    MPI_Datatype types[2] = { block, t };
    rc = PMPI_Type_create_struct(r ? 2 : 1, lens, disp, types, out);
    int rc2 = PMPI_Type_free(&block);
    if (rc != MPI_SUCCESS) return rc;
    if (rc2 == MPI_SUCCESS) rc2 = PMPI_Type_commit(out);
    if (rc2 != MPI_SUCCESS) (void)PMPI_Type_free(out);   /* rc2 is the error reported */
    return rc2;
}

/* The region's elements as one element of *big (from its address). */
static int message_type(const tc_bind *b, const tc_region *g, MPI_Datatype *big)
{
    if (b->packed) return big_type(MPI_PACKED, 1, 1, g->cnt * b->size, big);
    return big_type(b->type, b->size, b->extent, g->cnt, big);
}

/* Largest element count of b's type whose bytes an int counts (>= 1). */
static int64_t chunk_elems(int size)
{
    return size > 0 ? INT_MAX / size : INT_MAX;
}

int tc_pack_elems(const char *src, int64_t n, const tc_bind *b, char *dst, MPI_Comm comm)
{
    int64_t k = chunk_elems(b->size);
    while (n > 0) {
        int m = (int)(n < k ? n : k), pos = 0;
        int rc = PMPI_Pack(src, m, b->type, dst, m * b->size, &pos, comm);
        if (rc != MPI_SUCCESS) return rc;
        src += m * b->extent;
        dst += pos;
        n -= m;
    }
    return MPI_SUCCESS;
}

int tc_unpack_elems(const char *src, char *dst, int64_t n, const tc_bind *b, MPI_Comm comm)
{
    int64_t k = chunk_elems(b->size);
    while (n > 0) {
        int m = (int)(n < k ? n : k), pos = 0;
        int rc = PMPI_Unpack(src, m * b->size, &pos, dst, m, b->type, comm);
        if (rc != MPI_SUCCESS) return rc;
        src += pos;
        dst += m * b->extent;
        n -= m;
    }
    return MPI_SUCCESS;
}

/* A copy between two typed regions, one of them beyond an int: MPI moves
 * it to this rank itself (the element types may differ, so pieces of the
 * two sides do not line up). */
static int copy_self(const tc_bind *sb, const tc_region *a, const tc_bind *db, const tc_region *b,
                     MPI_Comm comm)
{
    MPI_Datatype sbig = MPI_DATATYPE_NULL, dbig = MPI_DATATYPE_NULL;
    int me, rc, rc2;
    if ((rc = PMPI_Comm_rank(comm, &me)) != MPI_SUCCESS) return rc;
    if ((rc = message_type(sb, a, &sbig)) != MPI_SUCCESS) return rc;
    if ((rc = message_type(db, b, &dbig)) == MPI_SUCCESS) {
        rc = PMPI_Sendrecv(addr(sb, a), 1, sbig, me, TC_SELF_TAG, addr(db, b), 1, dbig, me,
                           TC_SELF_TAG, comm, MPI_STATUS_IGNORE);
        rc2 = PMPI_Type_free(&dbig);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    rc2 = PMPI_Type_free(&sbig);
    return rc == MPI_SUCCESS ? rc2 : rc;
}

/* A copy whose counts or bytes an int does not hold. */
static int copy_big(const tc_bind *sb, const tc_op *op, const tc_bind *db, MPI_Comm comm)
{
    char *src = addr(sb, &op->a), *dst = addr(db, &op->b);
    if (db->packed) return tc_pack_elems(src, op->a.cnt, sb, dst, comm);
    if (sb->packed) return tc_unpack_elems(src, dst, op->b.cnt, db, comm);
    return copy_self(sb, &op->a, db, &op->b, comm);
}

static int copy(const tc_bind *bind, const tc_op *op, tc_workspace *ws, MPI_Comm comm)
{
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    char *src = addr(sb, &op->a), *dst = addr(db, &op->b);
    int64_t bytes64 = op->a.cnt * sb->size;
    if (src == dst && sb->type == db->type && sb->packed == db->packed && op->a.cnt == op->b.cnt)
        return MPI_SUCCESS;
    if ((sb->contiguous || sb->packed) && (db->contiguous || db->packed)) {
        memmove(dst, src, (size_t)bytes64);
        return MPI_SUCCESS;
    }
    if (bytes64 > INT_MAX || op->a.cnt > INT_MAX || op->b.cnt > INT_MAX)
        return copy_big(sb, op, db, comm);
    int bytes = (int)bytes64, pos = 0, rc;
    if (db->packed)
        return PMPI_Pack(src, (int)op->a.cnt, sb->type, dst, bytes, &pos, comm);
    if (sb->packed)
        return PMPI_Unpack(src, bytes, &pos, dst, (int)op->b.cnt, db->type, comm);
    int packed = 0;
    if ((rc = PMPI_Pack_size((int)op->a.cnt, sb->type, comm, &bytes)) != MPI_SUCCESS) return rc;
    if ((rc = grow((void **)&ws->pack, &ws->pack_bytes, (size_t)bytes)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Pack(src, (int)op->a.cnt, sb->type, ws->pack, bytes, &packed, comm)) != MPI_SUCCESS)
        return rc;
    return PMPI_Unpack(ws->pack, packed, &pos, dst, (int)op->b.cnt, db->type, comm);
}

/* b = a (op) b: the call's kernel where it was looked up for b's type (a
 * fast loop, or the MPI library in pieces of at most INT_MAX elements). */
static int reduce(const tc_bind *sb, const tc_bind *db, const tc_op *op, const tc_reduce_kernel *k)
{
    tc_reduce_kernel other;
    if (k->type != db->type) {   /* not the type looked up: the MPI library */
        other = *k;
        other.type = db->type;
        other.fn = NULL;
        k = &other;
    }
    return tc_reduce_local(k, addr(sb, &op->a), addr(db, &op->b), op->a.cnt, sb->extent, db->extent);
}

/* A typed copy of n elements of packed data (a non-contiguous type): the
 * typed description tb (its real extent), memory from malloc in *mem. */
static int unpack_typed(const char *src, int64_t n, const tc_bind *tb, char **mem, char **typed, MPI_Comm comm)
{
    size_t span = n > 0 ? (size_t)(tb->true_extent + (n - 1) * tb->extent) : 1;
    *mem = malloc(span);
    if (!*mem) return MPI_ERR_NO_MEM;
    *typed = *mem - tb->true_lb;
    return tc_unpack_elems(src, *typed, n, tb, comm);
}

/* b = a (op) b where a side is packed node-shared memory and the type is not
 * contiguous: the op wants the type's own layout, so the packed sides are
 * unpacked into typed scratch, reduced there and packed back (only datatypes
 * with gaps or a non-zero lower bound take this path). */
static int reduce_packed(const tc_bind *sb, const tc_bind *db, const tc_op *op, const tc_reduce_kernel *k,
                         MPI_Comm comm)
{
    tc_bind tb = sb->packed ? *db : *sb, fs, fd;
    MPI_Aint lb;
    char *smem = NULL, *dmem = NULL, *src = addr(sb, &op->a), *dst = addr(db, &op->b);
    int rc = PMPI_Type_get_extent(tb.type, &lb, &tb.extent);
    tb.packed = 0;
    if (rc == MPI_SUCCESS && sb->packed) rc = unpack_typed(addr(sb, &op->a), op->a.cnt, &tb, &smem, &src, comm);
    if (rc == MPI_SUCCESS && db->packed) rc = unpack_typed(addr(db, &op->b), op->b.cnt, &tb, &dmem, &dst, comm);
    if (rc == MPI_SUCCESS) {
        tc_op typed = *op;
        typed.a.off = typed.b.off = 0;
        fs = tb, fd = tb;
        fs.base = src, fd.base = dst;
        rc = reduce(&fs, &fd, &typed, k);
    }
    if (rc == MPI_SUCCESS && db->packed) rc = tc_pack_elems(dst, op->b.cnt, &tb, addr(db, &op->b), comm);
    free(smem);
    free(dmem);
    return rc;
}

/* RREAD: a node peer's published buffer region into a dense local one
 * (single copy, cma.h). */
/* RREAD ops i.. of the round (to e) from one peer, back to back, go as one
 * process_vm_readv (at most TC_CMA_MAX_PIECES); *n gets how many. */
static int remote_reads(const tc_bind *bind, const tc_sched *s, int i, int e, const tc_exec_env *env, int *n)
{
    tc_cma_piece pc[TC_CMA_MAX_PIECES];
    int k = 0, peer = s->ops[i].peer;
    for (; k < TC_CMA_MAX_PIECES && i + k < e; k++) {
        const tc_op *op = &s->ops[i + k];
        if (op->kind != TC_OP_RREAD || op->peer != peer) break;
        const tc_bind *db = &bind[(int)op->b.buf];
        if (!db->contiguous && !db->packed) return MPI_ERR_INTERN;   /* the API declines such types */
        pc[k] = (tc_cma_piece){ op->a.buf, op->a.off, addr(db, &op->b), (size_t)(op->b.cnt * db->size) };
    }
    *n = k;
    return tc_cma_read(&env->shm->cma, env->shm->pub, env->node_idx[peer], pc, k);
}

/* Before a schedule with RREAD ops: this call's SEND, RECV and TMP, for the
 * node peers to read (ordered by the schedule's first signals). */
static int publish(const tc_sched *s, const tc_bind bind[TC_NBUF], const tc_exec_env *env)
{
    if (!s->uses_rread) return MPI_SUCCESS;
    if (!env->shm->cma.ok || !env->shm->pub) return MPI_ERR_INTERN;   /* the entries decline then */
    char *base[3];
    int64_t stride[3];
    for (int b = 0; b < 3; b++) {
        base[b] = bind[b].base;
        stride[b] = (int64_t)bind[b].extent;
    }
    tc_cma_publish(&env->shm->cma, env->shm->pub, env->shm->node_rank, base, stride);
    return MPI_SUCCESS;
}

int tc_exec_local(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, const tc_reduce_kernel *k)
{
    if (op->kind == TC_OP_COPY) return copy(bind, op, env->ws, env->comm);
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    if ((sb->packed || db->packed) && !db->contiguous) return reduce_packed(sb, db, op, k, env->comm);
    return reduce(sb, db, op, k);
}

/* A SEND or RECV whose count an int does not hold. */
static int post_big(const tc_bind *b, const tc_op *op, int tag, MPI_Comm comm, MPI_Request *req)
{
    MPI_Datatype big;
    int rc = message_type(b, &op->a, &big), rc2;
    if (rc != MPI_SUCCESS) return rc;
    if (op->kind == TC_OP_RECV) rc = PMPI_Irecv(addr(b, &op->a), 1, big, op->peer, tag, comm, req);
    else rc = PMPI_Isend(addr(b, &op->a), 1, big, op->peer, tag, comm, req);
    rc2 = PMPI_Type_free(&big);   /* the request keeps what it needs */
    if (rc != MPI_SUCCESS || rc2 == MPI_SUCCESS) return rc;
    /* not reported as posted: leave no request behind (rc2 is the error) */
    (void)PMPI_Cancel(req);
    (void)PMPI_Wait(req, MPI_STATUS_IGNORE);
    return rc2;
}

/* tag: a receive's (MPI_ANY_TAG from other ranks), a send's (TC_TAG_ERR
 * once a truncation was seen; see below). */
static int post(const tc_bind *bind, const tc_op *op, int tag, MPI_Comm comm, MPI_Request *req)
{
    const tc_bind *b = &bind[(int)op->a.buf];
    int64_t count = b->packed ? op->a.cnt * b->size : op->a.cnt;
    if (count > INT_MAX) return post_big(b, op, tag, comm, req);
    MPI_Datatype type = b->packed ? MPI_PACKED : b->type;
    if (op->kind == TC_OP_RECV)
        return PMPI_Irecv(addr(b, &op->a), (int)count, type, op->peer, tag, comm, req);
    return PMPI_Isend(addr(b, &op->a), (int)count, type, op->peer, tag, comm, req);
}

/* ---- erroneous calls: a truncated receive does not stop the schedule ----
 * A receive that fails with class MPI_ERR_TRUNCATE (ranks disagree on a
 * count: the data up to the posted size did arrive) is the call's error,
 * but the schedule goes on to its end, so that no peer waits forever for a
 * message or a signal this rank would have sent after it.  From then on
 * this rank's sends carry TC_TAG_ERR instead of TC_TAG, and receives (from
 * other ranks) match either tag: a rank receiving a message tagged so takes
 * MPI_ERR_TRUNCATE as its own error (the message may carry data of the
 * truncated one) and passes it on the same way.  Any other error stops the
 * schedule at once (pending requests cancelled and completed). */
#define TC_TAG_ERR 9

/* Per run: the first truncation (seen or passed on), and my rank; for a
 * schedule on the inline lines, its state (exec_mpi.h). */
typedef struct run_state {
    int err;
    int me;
    tc_exec_lines ln;
} run_state;

static int error_class(int code)
{
    int cls = MPI_ERR_OTHER;
    if (code == MPI_SUCCESS) return MPI_SUCCESS;
    return PMPI_Error_class(code, &cls) == MPI_SUCCESS ? cls : MPI_ERR_OTHER;
}

/* A request's own error (its status after an MPI_ERR_IN_STATUS).  One the
 * wait left pending is completed (cancelled first when the round fails
 * anyway: hard).  A truncation is recorded in *st, not returned. */
static int request_error(MPI_Request *req, MPI_Status *status, run_state *st, int hard)
{
    int e = status->MPI_ERROR;
    if (e == MPI_ERR_PENDING) {
        if (*req == MPI_REQUEST_NULL) return MPI_SUCCESS;
        if (hard) {
            (void)PMPI_Cancel(req);
            (void)PMPI_Wait(req, MPI_STATUS_IGNORE);
            return MPI_SUCCESS;
        }
        if ((e = PMPI_Wait(req, status)) == MPI_SUCCESS) return MPI_SUCCESS;
    }
    if (e == MPI_SUCCESS) return MPI_SUCCESS;
    if (error_class(e) != MPI_ERR_TRUNCATE) return e;
    if (st->err == MPI_SUCCESS) st->err = e;
    return MPI_SUCCESS;
}

/* After a failed MPI_Waitall: every request's own error by its own class (a
 * truncated receive is MPI_ERR_TRUNCATE as a single receive would report it,
 * not MPI_ERR_IN_STATUS).  Truncations are recorded and the round goes on;
 * on any other error the requests still pending are cancelled and
 * completed, so none is left behind, and the first such error returned. */
static int status_errors(int n, MPI_Request *reqs, MPI_Status *stats, run_state *st, int rc)
{
    int first = MPI_SUCCESS, hard = 0, cls = error_class(rc);
    if (cls != MPI_ERR_IN_STATUS) {   /* an MPI that names the class itself */
        if (cls != MPI_ERR_TRUNCATE || n != 1) return rc;
        if (st->err == MPI_SUCCESS) st->err = rc;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        int e = stats[i].MPI_ERROR;
        if (e != MPI_SUCCESS && e != MPI_ERR_PENDING && error_class(e) != MPI_ERR_TRUNCATE) hard = 1;
    }
    for (int i = 0; i < n; i++) {
        int e = request_error(&reqs[i], &stats[i], st, hard);
        if (e != MPI_SUCCESS && first == MPI_SUCCESS) first = e;
    }
    return first;
}

int tc_exec_request_errors(int n, MPI_Request *reqs, MPI_Status *stats, int *truncation, int rc)
{
    run_state st;
    st.err = *truncation;
    rc = status_errors(n, reqs, stats, &st, rc);
    *truncation = st.err;
    return rc;
}

/* The round's requests, with the workspace's statuses (sized with them).
 * While nonblocking operations run, the requests are tested and the
 * operations advanced in turn, and every TESTS_BEFORE_YIELD-th test gives
 * the processor up (a yield, sleeps once the wait lasts: backoff.h), as the
 * waits on node-shared memory do. */
#define TESTS_BEFORE_YIELD 64
static int wait_all(int n, tc_workspace *ws, run_state *st)
{
    int rc, flag = 0;
    if (tc_waiting_hook && tc_waiting_hook() > 0) {   /* nonblocking operations advance meanwhile */
        tc_backoff b;
        tc_backoff_init(&b, 0, TESTS_BEFORE_YIELD);
        while ((rc = PMPI_Testall(n, ws->reqs, &flag, ws->stats)) == MPI_SUCCESS && !flag) {
            (void)tc_waiting_hook();
            tc_backoff_pause(&b);
        }
        return rc == MPI_SUCCESS ? rc : status_errors(n, ws->reqs, ws->stats, st, rc);
    }
    rc = PMPI_Waitall(n, ws->reqs, ws->stats);
    return rc == MPI_SUCCESS ? rc : status_errors(n, ws->reqs, ws->stats, st, rc);
}

int tc_exec_ensure_requests(tc_workspace *ws, int n)
{
    if (ws->nreqs >= n) return MPI_SUCCESS;
    MPI_Request *r = realloc(ws->reqs, (size_t)n * sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    ws->reqs = r;
    MPI_Status *st = realloc(ws->stats, (size_t)n * sizeof *st);
    if (!st) return MPI_ERR_NO_MEM;
    ws->stats = st;
    ws->nreqs = n;
    return MPI_SUCCESS;
}

/* Local work while the round's messages are in flight goes in pieces of
 * about PROGRESS_PIECE bytes with a look at the MPI library between them
 * (MPI_Iprobe, which completes nothing): a library that progresses only
 * inside its calls (Open MPI's and MPICH's TCP paths) would otherwise answer
 * a rendezvous or push the next fragments only after the whole local work,
 * and the messages would not overlap it.  An op is cut by elements only
 * where both regions count the same elements of the same size (every
 * reduction; copies between buffers of one type); smaller ops and others
 * go whole. */
#define PROGRESS_PIECE ((int64_t)64 << 10)

static int poke_progress(MPI_Comm comm)
{
    int flag;
    return PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
}

int tc_exec_local_in_flight(const tc_bind *bind, const tc_op *op, const tc_exec_env *env,
                            const tc_reduce_kernel *k)
{
    int size = bind[(int)op->a.buf].size;
    int64_t n = op->a.cnt, piece = size > 0 ? PROGRESS_PIECE / size : n;
    if (piece < 1) piece = 1;
    if (n <= piece || op->b.cnt != n || bind[(int)op->b.buf].size != size) return tc_exec_local(bind, op, env, k);
    for (int64_t lo = 0; lo < n; lo += piece) {
        tc_op part = *op;
        int64_t cnt = n - lo < piece ? n - lo : piece;
        part.a.off += lo;
        part.b.off += lo;
        part.a.cnt = part.b.cnt = cnt;
        int rc = tc_exec_local(bind, &part, env, k);
        if (rc == MPI_SUCCESS && lo + cnt < n) rc = poke_progress(env->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Post the round's sends and receives in the schedule's order.  Receives
 * from other ranks match any tag; messages to and from this rank itself
 * keep TC_TAG. */
int tc_exec_post(const tc_sched *s, int b, int e, const tc_bind *bind, MPI_Comm comm, int me,
                 tc_exec_tags tags, MPI_Request *reqs, int *nreq)
{
    int rc;
    for (int i = b; i < e; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind != TC_OP_SEND && op->kind != TC_OP_RECV) continue;
        int tag = op->peer == me ? tags.self : op->kind == TC_OP_RECV ? tags.recv : tags.send;
        if ((rc = post(bind, op, tag, comm, &reqs[*nreq])) != MPI_SUCCESS) return rc;
        ++*nreq;
    }
    return MPI_SUCCESS;
}

static int post_round(const tc_sched *s, int b, int e, tc_bind bind[TC_NBUF], const tc_exec_env *env,
                      const run_state *st, int *nreq)
{
    tc_exec_tags tags = { st->err == MPI_SUCCESS ? TC_TAG : TC_TAG_ERR, MPI_ANY_TAG, TC_TAG };
    return tc_exec_post(s, b, e, bind, env->comm, st->me, tags, env->ws->reqs, nreq);
}

/* After the round's wait: a receive tagged TC_TAG_ERR passes the error on
 * (the requests are the round's sends and receives in op order). */
static void passed_on(const tc_sched *s, int b, int e, const MPI_Status *stats, run_state *st)
{
    for (int i = b, k = 0; i < e && st->err == MPI_SUCCESS; i++) {
        int kind = s->ops[i].kind;
        if (kind != TC_OP_SEND && kind != TC_OP_RECV) continue;
        if (kind == TC_OP_RECV && stats[k].MPI_TAG == TC_TAG_ERR) st->err = MPI_ERR_TRUNCATE;
        k++;
    }
}

/* ---- the inline lines (sched.h's PUBLISH and COLLECT, shm_inline.h) ----
 * Dense data (contiguous or packed) goes straight between the region and
 * the lines; a type with holes through the pack buffer. */

static void inline_error(tc_exec_lines *ln, int rc)
{
    if (rc != MPI_SUCCESS && ln->err == MPI_SUCCESS) ln->err = rc;
}

void tc_exec_line_publish(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, tc_exec_lines *ln)
{
    const tc_bind *sb = &bind[(int)op->a.buf];
    int64_t n = op->b.cnt * ln->line_elem;
    const char *src = addr(sb, &op->a);
    if (!sb->contiguous && !sb->packed) {
        int rc = grow((void **)&env->ws->pack, &env->ws->pack_bytes, (size_t)(n ? n : 1));
        if (rc == MPI_SUCCESS) rc = tc_pack_elems(src, op->a.cnt, sb, env->ws->pack, env->comm);
        inline_error(ln, rc);
        src = env->ws->pack;
        if (rc != MPI_SUCCESS) {   /* published empty all the same: the readers wait for it (and
                                      see a short publication, the reductions an error) */
            src = (const char *)&ln->ic;
            n = 0;
        }
    }
    tc_inline_publish(env->shm, &ln->ic, src, n);
}

/* Fewer bytes than asked: a short copy (the rest left as it was), but a
 * reduction's operand must be whole. */
void tc_exec_line_collect(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, tc_exec_lines *ln)
{
    const tc_bind *db = &bind[(int)op->b.buf];
    int64_t n = op->a.cnt * ln->line_elem, got;
    int truncated = 0, rc = MPI_SUCCESS;
    char *dst = addr(db, &op->b);
    if (db->contiguous || db->packed) {
        got = tc_inline_collect(env->shm, &ln->ic, env->node_idx[op->peer], dst, n, &truncated);
    } else {
        rc = grow((void **)&env->ws->pack, &env->ws->pack_bytes, (size_t)(n ? n : 1));
        got = rc == MPI_SUCCESS ? tc_inline_collect(env->shm, &ln->ic, env->node_idx[op->peer], env->ws->pack,
                                                    n, &truncated) : 0;
        if (rc == MPI_SUCCESS && db->size > 0) rc = tc_unpack_elems(env->ws->pack, dst, got / db->size, db, env->comm);
    }
    if (truncated || (got < n && env->op != MPI_OP_NULL)) rc = MPI_ERR_TRUNCATE;
    inline_error(ln, rc);
    if (op->peer != ln->me) ln->collected++;
}

static int copy_op(const tc_bind *bind, const tc_op *op, const tc_exec_env *env)
{
    return copy(bind, op, env->ws, env->comm);
}

static int run_round(const tc_sched *s, int r, tc_bind bind[TC_NBUF], const tc_exec_env *env,
                     const tc_reduce_kernel *k, run_state *st)
{
    int nreq = 0;
    int b = tc_sched_round_begin(s, r), e = tc_sched_round_end(s, r);
    if (s->ops[b].kind == TC_OP_SUBCOLL) return tc_exec_subcoll(s, b, e, bind, env, copy_op, &st->err);
    MPI_Request *reqs = env->ws->reqs;
    int rc = post_round(s, b, e, bind, env, st, &nreq);
    for (int i = b, n = 1; i < e && rc == MPI_SUCCESS; i += n) {
        const tc_op *op = &s->ops[i];
        n = 1;
        if (op->kind == TC_OP_RREAD) rc = remote_reads(bind, s, i, e, env, &n);
        else if (op->kind == TC_OP_PUBLISH) tc_exec_line_publish(bind, op, env, &st->ln);
        else if (op->kind == TC_OP_COLLECT) tc_exec_line_collect(bind, op, env, &st->ln);
        else if (op->kind == TC_OP_COPY || op->kind == TC_OP_REDUCE)
            rc = nreq ? tc_exec_local_in_flight(bind, op, env, k) : tc_exec_local(bind, op, env, k);
    }
    if (rc != MPI_SUCCESS) {
        /* Leave no request behind: cancel what was posted, then complete
         * it.  rc is the error reported; a failure to cancel or complete
         * cannot be reported beside it. */
        for (int i = 0; i < nreq; i++) (void)PMPI_Cancel(&reqs[i]);
        if (nreq) (void)PMPI_Waitall(nreq, reqs, env->ws->stats);
        return rc;
    }
    for (int i = b; i < e; i++) {
        if (s->ops[i].kind != TC_OP_SIGNAL) continue;
        if (st->err == MPI_SUCCESS) tc_shm_signal(env->shm, env->node_idx[s->ops[i].peer]);
        else tc_shm_signal_error(env->shm, env->node_idx[s->ops[i].peer]);
    }
    if (nreq) {
        if ((rc = wait_all(nreq, env->ws, st)) != MPI_SUCCESS) return rc;
        passed_on(s, b, e, env->ws->stats, st);
    }
    for (int i = b; i < e; i++)
        if (s->ops[i].kind == TC_OP_WAIT && tc_shm_wait(env->shm, env->node_idx[s->ops[i].peer]) &&
            st->err == MPI_SUCCESS)
            st->err = MPI_ERR_TRUNCATE;   /* passed on with the signal */
    return MPI_SUCCESS;
}

/* A reduction: the call's kernel, looked up at the schedule's first one
 * (*have: schedules of allgather, bcast and a reduce's non-roots have none). */
static int inline_reduce(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, tc_reduce_kernel *k,
                         int *have, int tmp_like)
{
    if (!*have) {
        tc_reduce_kernel_find(env->op, bind[tmp_like].type, k);
        *have = 1;
    }
    return tc_exec_local(bind, op, env, k);
}

/* A schedule on the inline lines without messages, flags or remote reads
 * (every catalog one): its rounds are its local ops in order, run in one
 * pass, and a first PUBLISH goes before anything its readers do not need
 * (scratch, the reductions' kernel): the peers wait for it.  No SHM
 * binding (no op of such a schedule has an SHM region but the lines'; their
 * element size is tmp_like's), the kernel only with a REDUCE. */
static int run_inline(const tc_sched *s, tc_bind bind[TC_NBUF], const tc_exec_env *env, run_state *st)
{
    int rc, i = 0, have_k = 0;
    st->ln.line_elem = bind[s->tmp_like].size;
    if ((rc = tc_inline_begin(env->shm, s->inline_count * st->ln.line_elem, &st->ln.ic)) != MPI_SUCCESS)
        return rc;
    st->ln.collected = 0;
    st->ln.err = MPI_SUCCESS;
    st->ln.me = st->me;
    if (s->nops > 0 && s->ops[0].kind == TC_OP_PUBLISH && s->ops[0].a.buf != TC_BUF_TMP)
        tc_exec_line_publish(bind, &s->ops[i++], env, &st->ln);
    rc = tc_exec_bind_tmp(s, bind, env->ws);
    if (rc == MPI_SUCCESS && !env->ws->rank1 && (rc = PMPI_Comm_rank(env->comm, &st->me)) == MPI_SUCCESS)
        env->ws->rank1 = (st->ln.me = st->me) + 1;   /* once per communicator */
    tc_reduce_kernel k;
    for (; i < s->nops && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        switch (op->kind) {
        case TC_OP_PUBLISH: tc_exec_line_publish(bind, op, env, &st->ln); break;
        case TC_OP_COLLECT: tc_exec_line_collect(bind, op, env, &st->ln); break;
        case TC_OP_COPY: rc = copy(bind, op, env->ws, env->comm); break;
        case TC_OP_REDUCE: rc = inline_reduce(bind, op, env, &k, &have_k, s->tmp_like); break;
        default: rc = MPI_ERR_INTERN;   /* not an op of such a schedule */
        }
    }
    /* done whatever failed: the peers' next calls wait for it */
    tc_inline_finish(env->shm, &st->ln.ic, st->ln.collected == env->shm->node_size - 1);
    return rc == MPI_SUCCESS ? st->ln.err : rc;
}

int tc_exec(const tc_sched *s, tc_bind bind[TC_NBUF], const tc_exec_env *env)
{
    int rc;
    run_state st;
    st.err = MPI_SUCCESS;
    st.me = env->ws->rank1 - 1;
    if (s->uses_inline && s->max_comm == 0 && !s->uses_shm && !s->uses_subcoll)
        return run_inline(s, bind, env, &st);
    if ((rc = tc_exec_bind_tmp(s, bind, env->ws)) != MPI_SUCCESS) return rc;
    if ((rc = tc_exec_bind_shm(s, bind, env->shm)) != MPI_SUCCESS) return rc;
    if ((rc = publish(s, bind, env)) != MPI_SUCCESS) return rc;
    if ((rc = tc_exec_ensure_requests(env->ws, s->max_comm)) != MPI_SUCCESS) return rc;
    if (!env->ws->rank1) {   /* once per communicator */
        if ((rc = PMPI_Comm_rank(env->comm, &st.me)) != MPI_SUCCESS) return rc;
        env->ws->rank1 = st.me + 1;
    }
    if (s->uses_subcoll) {   /* every rank's schedule has such rounds: all make them here */
        if (!env->sub) return MPI_ERR_INTERN;
        rc = tc_subcomms_make(env->sub, env->comm, env->ws->rank1 - 1, env->node_of, env->node_idx);
        if (rc != MPI_SUCCESS) return rc;
    }
    tc_reduce_kernel k;   /* once per call: the reductions' kernel for the call's op and type */
    tc_reduce_kernel_find(env->op, bind[s->tmp_like].type, &k);
    if (!s->uses_inline) {
        for (int r = 0; r < s->nrounds; r++)
            if ((rc = run_round(s, r, bind, env, &k, &st)) != MPI_SUCCESS) return rc;
        return st.err;   /* the first truncation, seen here or passed on (see above) */
    }
    st.ln.collected = 0;
    st.ln.err = MPI_SUCCESS;
    st.ln.me = st.me;
    st.ln.line_elem = bind[TC_BUF_SHM].size;
    if ((rc = tc_inline_begin(env->shm, s->inline_count * st.ln.line_elem, &st.ln.ic)) != MPI_SUCCESS)
        return rc;
    for (int r = 0; r < s->nrounds && rc == MPI_SUCCESS; r++) rc = run_round(s, r, bind, env, &k, &st);
    /* done whatever failed: the peers' next calls wait for it */
    tc_inline_finish(env->shm, &st.ln.ic, st.ln.collected == env->shm->node_size - 1);
    if (rc == MPI_SUCCESS) rc = st.err;
    return rc == MPI_SUCCESS ? st.ln.err : rc;
}

void tc_workspace_free(tc_workspace *ws)
{
    free(ws->reqs);
    free(ws->stats);
    free(ws->tmp);
    free(ws->pack);
    free(ws->stage);
    memset(ws, 0, sizeof *ws);
}

int tc_workspace_stage(tc_workspace *ws, size_t n)
{
    return grow((void **)&ws->stage, &ws->stage_bytes, n ? n : 1);
}
