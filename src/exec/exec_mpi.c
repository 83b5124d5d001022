/* The MPI executor (see exec_mpi.h). */
#include "exec/exec_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/membind.h"

#define TC_TAG 7  /* on the private communicator: no user message can match */

int tc_bind_type(tc_bind *b, void *base, MPI_Datatype type)
{
    MPI_Aint lb;
    int rc;
    b->base = base;
    b->type = type;
    b->packed = 0;
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

static int bind_tmp(const tc_sched *s, tc_bind bind[TC_NBUF], tc_workspace *ws)
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
static int bind_shm(const tc_sched *s, tc_bind bind[TC_NBUF], tc_shm *sh)
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

static int copy(const tc_bind *bind, const tc_op *op, tc_workspace *ws, MPI_Comm comm)
{
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    char *src = addr(sb, &op->a), *dst = addr(db, &op->b);
    int bytes = (int)op->a.cnt * sb->size, pos = 0, rc;
    if (src == dst && sb->type == db->type && sb->packed == db->packed && op->a.cnt == op->b.cnt)
        return MPI_SUCCESS;
    if ((sb->contiguous || sb->packed) && (db->contiguous || db->packed)) {
        memmove(dst, src, (size_t)bytes);
        return MPI_SUCCESS;
    }
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

static int local_op(const tc_bind *bind, const tc_op *op, const tc_exec_env *env)
{
    if (op->kind == TC_OP_COPY) return copy(bind, op, env->ws, env->comm);
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    return PMPI_Reduce_local(addr(sb, &op->a), addr(db, &op->b), (int)op->a.cnt, db->type, env->op);
}

static int post(const tc_bind *bind, const tc_op *op, MPI_Comm comm, MPI_Request *req)
{
    const tc_bind *b = &bind[(int)op->a.buf];
    int count = b->packed ? (int)op->a.cnt * b->size : (int)op->a.cnt;
    MPI_Datatype type = b->packed ? MPI_PACKED : b->type;
    if (op->kind == TC_OP_RECV)
        return PMPI_Irecv(addr(b, &op->a), count, type, op->peer, TC_TAG, comm, req);
    return PMPI_Isend(addr(b, &op->a), count, type, op->peer, TC_TAG, comm, req);
}

/* After a failed MPI_Waitall: the first error of a request, by its own
 * class (a truncated receive, where ranks disagree on counts, is
 * MPI_ERR_TRUNCATE as a single receive would report it, not
 * MPI_ERR_IN_STATUS); requests still pending are cancelled and completed,
 * so none is left behind. */
static int status_error(int n, MPI_Request *reqs, MPI_Status *st, int rc)
{
    int first = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int e = st[i].MPI_ERROR;
        if (e == MPI_ERR_PENDING) {
            if (reqs[i] != MPI_REQUEST_NULL) {
                (void)PMPI_Cancel(&reqs[i]);
                (void)PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
            }
        } else if (e != MPI_SUCCESS && first == MPI_SUCCESS) {
            first = e;
        }
    }
    return first != MPI_SUCCESS ? first : rc;
}

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which gcc 12's
 * -Wstringop-overflow takes for a zero-sized array: a false positive. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int wait_all(int n, MPI_Request *reqs)
{
    MPI_Status small[32], *st = small;
    int rc, cls = MPI_SUCCESS;
    if (n > 32 && !(st = malloc((size_t)n * sizeof *st)))
        return PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);   /* errors then as MPI gives them */
    rc = PMPI_Waitall(n, reqs, st);
    if (rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_IN_STATUS)
        rc = status_error(n, reqs, st, rc);
    if (st != small) free(st);
    return rc;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static int ensure_requests(tc_workspace *ws, int n)
{
    if (ws->nreqs >= n) return MPI_SUCCESS;
    MPI_Request *r = realloc(ws->reqs, (size_t)n * sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    ws->reqs = r;
    ws->nreqs = n;
    return MPI_SUCCESS;
}

static int run_round(const tc_sched *s, int r, tc_bind bind[TC_NBUF], const tc_exec_env *env)
{
    int nreq = 0, rc = MPI_SUCCESS;
    int b = tc_sched_round_begin(s, r), e = tc_sched_round_end(s, r);
    MPI_Request *reqs = env->ws->reqs;
    for (int i = b; i < e && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind != TC_OP_SEND && op->kind != TC_OP_RECV) continue;
        if ((rc = post(bind, op, env->comm, &reqs[nreq])) == MPI_SUCCESS) nreq++;
    }
    for (int i = b; i < e && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind == TC_OP_COPY || op->kind == TC_OP_REDUCE) rc = local_op(bind, op, env);
    }
    if (rc != MPI_SUCCESS) {
        /* Leave no request behind: cancel what was posted, then complete
         * it.  rc is the error reported; a failure to cancel or complete
         * cannot be reported beside it. */
        for (int i = 0; i < nreq; i++) (void)PMPI_Cancel(&reqs[i]);
        (void)wait_all(nreq, reqs);
        return rc;
    }
    for (int i = b; i < e; i++)
        if (s->ops[i].kind == TC_OP_SIGNAL) tc_shm_signal(env->shm, env->node_idx[s->ops[i].peer]);
    if (nreq && (rc = wait_all(nreq, reqs)) != MPI_SUCCESS) return rc;
    for (int i = b; i < e; i++)
        if (s->ops[i].kind == TC_OP_WAIT) tc_shm_wait(env->shm, env->node_idx[s->ops[i].peer]);
    return MPI_SUCCESS;
}

int tc_exec(const tc_sched *s, tc_bind bind[TC_NBUF], const tc_exec_env *env)
{
    int rc;
    if ((rc = bind_tmp(s, bind, env->ws)) != MPI_SUCCESS) return rc;
    if ((rc = bind_shm(s, bind, env->shm)) != MPI_SUCCESS) return rc;
    if ((rc = ensure_requests(env->ws, s->max_comm)) != MPI_SUCCESS) return rc;
    for (int r = 0; r < s->nrounds; r++)
        if ((rc = run_round(s, r, bind, env)) != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
}

void tc_workspace_free(tc_workspace *ws)
{
    free(ws->reqs);
    free(ws->tmp);
    free(ws->pack);
    free(ws->stage);
    memset(ws, 0, sizeof *ws);
}

int tc_workspace_stage(tc_workspace *ws, size_t n)
{
    return grow((void **)&ws->stage, &ws->stage_bytes, n ? n : 1);
}
