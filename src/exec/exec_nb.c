/* The nonblocking executor (see exec_nb.h). */
#include "exec/exec_nb.h"

#include <string.h>

/* Post round e->round's messages and run its local ops (while they fly). */
static int begin_round(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    int b = tc_sched_round_begin(s, e->round), end = tc_sched_round_end(s, e->round), rc;
    tc_exec_tags tags = { e->tag, e->tag, e->tag };
    e->nreq = 0;
    rc = tc_exec_post(s, b, end, e->bind, e->env.comm, e->me, tags, e->ws.reqs, &e->nreq);
    for (int i = b; i < end && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind != TC_OP_COPY && op->kind != TC_OP_REDUCE) continue;
        rc = e->nreq ? tc_exec_local_in_flight(e->bind, op, &e->env, &e->k)
                     : tc_exec_local(e->bind, op, &e->env, &e->k);
    }
    return rc;
}

/* Stop on a hard error: what was posted is cancelled and completed. */
static void stop(tc_nb_exec *e, int rc)
{
    for (int i = 0; i < e->nreq; i++)
        if (e->ws.reqs[i] != MPI_REQUEST_NULL) (void)PMPI_Cancel(&e->ws.reqs[i]);
    if (e->nreq) (void)PMPI_Waitall(e->nreq, e->ws.reqs, e->ws.stats);
    e->nreq = 0;
    e->err = rc;
    e->round = e->s->nrounds;
}

/* Has the round in flight completed?  (1 yes, 0 not yet; a hard error
 * stops the operation and counts as done.) */
static int round_complete(tc_nb_exec *e)
{
    int flag = 1, rc = MPI_SUCCESS;
    if (e->nreq) rc = PMPI_Testall(e->nreq, e->ws.reqs, &flag, e->ws.stats);
    if (rc != MPI_SUCCESS) {
        rc = tc_exec_request_errors(e->nreq, e->ws.reqs, e->ws.stats, &e->truncation, rc);
        if (rc != MPI_SUCCESS) {
            stop(e, rc);
            return 1;
        }
        flag = 1;   /* every request completed, truncations recorded */
    }
    if (flag) e->nreq = 0;
    return flag;
}

int tc_nb_exec_progress(tc_nb_exec *e, int *done)
{
    while (e->round < e->s->nrounds) {
        if (!round_complete(e)) break;
        if (e->round >= e->s->nrounds) break;   /* stopped */
        if (++e->round == e->s->nrounds) break;
        int rc = begin_round(e);
        if (rc != MPI_SUCCESS) stop(e, rc);
    }
    *done = e->round >= e->s->nrounds;
    return MPI_SUCCESS;
}

int tc_nb_exec_start(tc_nb_exec *e, const tc_sched *s, MPI_Comm comm, int me, int tag, MPI_Op op)
{
    int rc, done;
    e->s = s;
    e->me = me;
    e->tag = tag;
    e->round = 0;
    e->nreq = 0;
    e->truncation = e->err = MPI_SUCCESS;
    e->env = (tc_exec_env){ comm, &e->ws, NULL, NULL, NULL, op, NULL };
    e->ws.rank1 = me + 1;
    if ((rc = tc_exec_bind_tmp(s, e->bind, &e->ws)) != MPI_SUCCESS) return rc;
    if ((rc = tc_exec_ensure_requests(&e->ws, s->max_comm > 0 ? s->max_comm : 1)) != MPI_SUCCESS) return rc;
    tc_reduce_kernel_find(op, e->bind[s->tmp_like].type, &e->k);
    if (s->nrounds == 0) return MPI_SUCCESS;
    if ((rc = begin_round(e)) != MPI_SUCCESS) {
        stop(e, rc);
        return MPI_SUCCESS;   /* reported as the operation's outcome */
    }
    return tc_nb_exec_progress(e, &done);
}

void tc_nb_exec_free(tc_nb_exec *e)
{
    tc_workspace_free(&e->ws);
    memset(e, 0, sizeof *e);
}
