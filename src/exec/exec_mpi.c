/* The MPI executor (see exec_mpi.h). */
#include "exec/exec_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TC_TAG 7  /* on the private communicator: no user message can match */

int tc_bind_type(tc_bind *b, void *base, MPI_Datatype type)
{
    MPI_Aint lb;
    int rc;
    b->base = base;
    b->type = type;
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

static inline char *addr(const tc_bind *b, const tc_region *g)
{
    return b->base + g->off * b->extent;
}

static int copy(const tc_bind *bind, const tc_op *op, tc_workspace *ws, MPI_Comm comm)
{
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    char *src = addr(sb, &op->a), *dst = addr(db, &op->b);
    if (src == dst && sb->type == db->type && op->a.cnt == op->b.cnt) return MPI_SUCCESS;
    if (sb->contiguous && db->contiguous) {
        memmove(dst, src, (size_t)op->a.cnt * (size_t)sb->size);
        return MPI_SUCCESS;
    }
    int packed = 0, bytes = 0, rc;
    if ((rc = PMPI_Pack_size((int)op->a.cnt, sb->type, comm, &bytes)) != MPI_SUCCESS) return rc;
    if ((rc = grow((void **)&ws->pack, &ws->pack_bytes, (size_t)bytes)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Pack(src, (int)op->a.cnt, sb->type, ws->pack, bytes, &packed, comm)) != MPI_SUCCESS)
        return rc;
    int pos = 0;
    return PMPI_Unpack(ws->pack, packed, &pos, dst, (int)op->b.cnt, db->type, comm);
}

static int local_op(const tc_bind *bind, const tc_op *op, MPI_Op mop, tc_workspace *ws,
                    MPI_Comm comm)
{
    if (op->kind == TC_OP_COPY) return copy(bind, op, ws, comm);
    const tc_bind *sb = &bind[(int)op->a.buf], *db = &bind[(int)op->b.buf];
    return PMPI_Reduce_local(addr(sb, &op->a), addr(db, &op->b), (int)op->a.cnt, db->type, mop);
}

static int post(const tc_bind *bind, const tc_op *op, MPI_Comm comm, MPI_Request *req)
{
    const tc_bind *b = &bind[(int)op->a.buf];
    if (op->kind == TC_OP_RECV)
        return PMPI_Irecv(addr(b, &op->a), (int)op->a.cnt, b->type, op->peer, TC_TAG, comm, req);
    return PMPI_Isend(addr(b, &op->a), (int)op->a.cnt, b->type, op->peer, TC_TAG, comm, req);
}

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which gcc 12's
 * -Wstringop-overflow takes for a zero-sized array: a false positive. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static int wait_all(int n, MPI_Request *reqs)
{
    return PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int tc_exec(const tc_sched *s, tc_bind bind[TC_NBUF], MPI_Op mop, MPI_Comm comm,
            tc_workspace *ws)
{
    int rc;
    if ((rc = bind_tmp(s, bind, ws)) != MPI_SUCCESS) return rc;
    if (ws->nreqs < s->max_comm) {
        size_t bytes = (size_t)s->max_comm * sizeof(MPI_Request);
        MPI_Request *n = realloc(ws->reqs, bytes);
        if (!n) return MPI_ERR_NO_MEM;
        ws->reqs = n;
        ws->nreqs = s->max_comm;
    }
    for (int r = 0; r < s->nrounds; r++) {
        int nreq = 0;
        int b = tc_sched_round_begin(s, r), e = tc_sched_round_end(s, r);
        for (int i = b; i < e; i++) {
            const tc_op *op = &s->ops[i];
            if (op->kind != TC_OP_SEND && op->kind != TC_OP_RECV) continue;
            if ((rc = post(bind, op, comm, &ws->reqs[nreq])) != MPI_SUCCESS) goto fail_round;
            nreq++;
        }
        for (int i = b; i < e; i++) {
            const tc_op *op = &s->ops[i];
            if (op->kind != TC_OP_COPY && op->kind != TC_OP_REDUCE) continue;
            if ((rc = local_op(bind, op, mop, ws, comm)) != MPI_SUCCESS) goto fail_round;
        }
        if (nreq && (rc = wait_all(nreq, ws->reqs)) != MPI_SUCCESS)
            return rc;
        continue;
    fail_round:
        /* leave no request behind: cancel what was posted, then complete it */
        for (int i = 0; i < nreq; i++) PMPI_Cancel(&ws->reqs[i]);
        wait_all(nreq, ws->reqs);
        return rc;
    }
    return MPI_SUCCESS;
}

void tc_workspace_free(tc_workspace *ws)
{
    free(ws->reqs);
    free(ws->tmp);
    free(ws->pack);
    memset(ws, 0, sizeof *ws);
}
