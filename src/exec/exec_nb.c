/* The nonblocking executor (see exec_nb.h). */
#include "exec/exec_nb.h"

#include <string.h>

/* Round e->round's local ops, while its messages fly, then its signals (an
 * error passed on with them after a truncation). */
static int run_local(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    int b = tc_sched_round_begin(s, e->round), end = tc_sched_round_end(s, e->round), rc = MPI_SUCCESS;
    e->local_due = 0;
    for (int i = b; i < end && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind != TC_OP_COPY && op->kind != TC_OP_REDUCE) continue;
        rc = e->nreq ? tc_exec_local_in_flight(e->bind, op, &e->env, &e->k)
                     : tc_exec_local(e->bind, op, &e->env, &e->k);
    }
    for (int i = b; i < end && rc == MPI_SUCCESS && s->uses_shm; i++) {
        if (s->ops[i].kind != TC_OP_SIGNAL) continue;
        if (e->truncation == MPI_SUCCESS) tc_shm_signal(e->env.shm, e->env.node_idx[s->ops[i].peer]);
        else tc_shm_signal_error(e->env.shm, e->env.node_idx[s->ops[i].peer]);
    }
    return rc;
}

/* Post round e->round's messages; its local ops then run at once, or, where
 * `defer` (a start), in the next progress call. */
static int begin_round(tc_nb_exec *e, int defer)
{
    const tc_sched *s = e->s;
    int b = tc_sched_round_begin(s, e->round), end = tc_sched_round_end(s, e->round);
    tc_exec_tags tags = { e->tag, e->tag, e->tag };
    e->nreq = 0;
    e->wait_at = b;
    int rc = tc_exec_post(s, b, end, e->bind, e->env.comm, e->me, tags, e->ws.reqs, &e->nreq);
    if (rc != MPI_SUCCESS) return rc;
    e->local_due = 1;
    return defer ? MPI_SUCCESS : run_local(e);
}

/* The round's WAITs from e->wait_at on, in order, without waiting: 1 when
 * every one has its signal. */
static int signals_came(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    int end = tc_sched_round_end(s, e->round);
    for (; e->wait_at < end; e->wait_at++) {
        const tc_op *op = &s->ops[e->wait_at];
        int error = 0;
        if (op->kind != TC_OP_WAIT) continue;
        if (!tc_shm_try_wait(e->env.shm, e->env.node_idx[op->peer], &error)) return 0;
        if (error && e->truncation == MPI_SUCCESS) e->truncation = MPI_ERR_TRUNCATE;   /* passed on */
    }
    return 1;
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
    if (!flag) return 0;
    e->nreq = 0;
    return !e->s->uses_shm || signals_came(e);
}

/* ---- a schedule on the inline lines: its ops in order, in one pass (as the
 * blocking executor runs them), a PUBLISH or a COLLECT only when it would
 * not wait; the lines' call finished after the last op. */

static int lines_step(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    tc_exec_lines *ln = &e->ln;
    int rc = MPI_SUCCESS;
    for (; e->op_at < s->nops && rc == MPI_SUCCESS; e->op_at++) {
        const tc_op *op = &s->ops[e->op_at];
        if (op->kind == TC_OP_PUBLISH) {
            if (!tc_inline_room_ready(e->env.shm, &ln->ic)) return 0;
            tc_exec_line_publish(e->bind, op, &e->env, ln);
        } else if (op->kind == TC_OP_COLLECT) {
            if (!tc_inline_ready(e->env.shm, &ln->ic, e->env.node_idx[op->peer], op->a.cnt * ln->line_elem))
                return 0;
            tc_exec_line_collect(e->bind, op, &e->env, ln);
        } else if (op->kind == TC_OP_COPY || op->kind == TC_OP_REDUCE) {
            rc = tc_exec_local(e->bind, op, &e->env, &e->k);
        } else {
            rc = MPI_ERR_INTERN;   /* not an op of such a schedule (tc_sched_lines_only) */
        }
    }
    /* done whatever failed: the peers' next calls wait for it */
    tc_inline_finish(e->env.shm, &ln->ic, ln->collected == e->env.shm->node_size - 1);
    if (rc != MPI_SUCCESS) e->err = rc;
    else if (ln->err != MPI_SUCCESS) e->truncation = ln->err;
    e->round = s->nrounds;
    return 1;
}

const char *tc_nb_exec_why(const tc_sched *s, int area)
{
    return area ? tc_sched_area_why(s) : tc_sched_nonblocking_why(s);
}

/* Was the area made for s (its data halves and slots big enough, so that
 * binding them grows nothing: that would be collective over the node)? */
static int room_made(const tc_sched *s, const tc_bind *bind, const tc_shm *area)
{
    if (!area) return 1;
    int64_t elem = bind[s->tmp_like].size;
    if (s->uses_shm && (area->flag_win == MPI_WIN_NULL || (size_t)(s->shm_count * elem) > area->half)) return 0;
    return !s->uses_inline || tc_inline_lines(s->inline_count * elem) <= area->line_cap;
}

/* The inline lines' call: its slots were reserved with the area, so
 * tc_inline_begin makes no collective call here. */
static int lines_begin(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    e->lines = 1;
    e->op_at = 0;
    e->ln.line_elem = e->bind[s->tmp_like].size;
    e->ln.collected = 0;
    e->ln.err = MPI_SUCCESS;
    e->ln.me = e->me;
    return tc_inline_begin(e->env.shm, s->inline_count * e->ln.line_elem, &e->ln.ic);
}

/* A ring call finished (or stopped): its area is free for the next. */
static void mark_done(tc_nb_exec *e)
{
    if (e->gate.home) tc_shm_gate_done(&e->gate);
    e->gate.home = NULL;
}

/* Bind the area's half, then the first round (or the lines' call), and
 * advance as far as it goes. */
static int start_now(tc_nb_exec *e)
{
    const tc_sched *s = e->s;
    int rc, done;
    if ((rc = tc_exec_bind_shm(s, e->bind, e->env.shm)) != MPI_SUCCESS) return rc;
    if (s->nrounds == 0) return MPI_SUCCESS;
    if (tc_sched_lines_only(s)) {
        if ((rc = lines_begin(e)) != MPI_SUCCESS) return rc;
        return tc_nb_exec_progress(e, &done);
    }
    int defer = !s->uses_shm;   /* on node-shared memory the local ops are what the peers wait for */
    if ((rc = begin_round(e, defer)) != MPI_SUCCESS) {
        stop(e, rc);
        return MPI_SUCCESS;   /* reported as the operation's outcome */
    }
    return defer ? MPI_SUCCESS : tc_nb_exec_progress(e, &done);
}

static int start_gated(tc_nb_exec *e)
{
    if (!tc_shm_gate_open(&e->gate)) return 0;
    e->gated = 0;
    int rc = start_now(e);
    if (rc != MPI_SUCCESS) stop(e, rc);
    return 1;
}

int tc_nb_exec_progress(tc_nb_exec *e, int *done)
{
    *done = 0;
    if (e->gated && !start_gated(e)) return MPI_SUCCESS;
    if (e->lines) {
        *done = e->round >= e->s->nrounds || lines_step(e);
        if (*done) mark_done(e);
        return MPI_SUCCESS;
    }
    if (e->local_due && e->round < e->s->nrounds) {
        int rc = run_local(e);
        if (rc != MPI_SUCCESS) stop(e, rc);
    }
    while (e->round < e->s->nrounds) {
        if (!round_complete(e)) break;
        if (e->round >= e->s->nrounds) break;   /* stopped */
        if (++e->round == e->s->nrounds) break;
        int rc = begin_round(e, 0);
        if (rc != MPI_SUCCESS) stop(e, rc);
    }
    *done = e->round >= e->s->nrounds;
    if (*done) mark_done(e);
    return MPI_SUCCESS;
}

/* The checks, the scratch's bindings and the reduction kernel of a start:
 * the same at every start of a persistent operation, so made at its first. */
static int prepare(tc_nb_exec *e, const tc_sched *s, MPI_Op op, const tc_shm *area)
{
    int rc;
    if (tc_nb_exec_why(s, area != NULL) || !room_made(s, e->bind, area))
        return MPI_ERR_INTERN;   /* the caller asked first; a start makes no collective call */
    if ((rc = tc_exec_bind_tmp(s, e->bind, &e->ws)) != MPI_SUCCESS) return rc;
    if ((rc = tc_exec_ensure_requests(&e->ws, s->max_comm > 0 ? s->max_comm : 1)) != MPI_SUCCESS) return rc;
    tc_reduce_kernel_find(op, e->bind[s->tmp_like].type, &e->k);
    return MPI_SUCCESS;
}

int tc_nb_exec_start(tc_nb_exec *e, const tc_sched *s, MPI_Comm comm, int me, int tag, MPI_Op op, tc_shm *area,
                     const int *node_idx, const tc_shm_gate *gate, int again)
{
    int rc;
    e->s = s;
    e->me = me;
    e->tag = tag;
    e->round = 0;
    e->nreq = 0;
    e->lines = 0;
    e->local_due = 0;
    e->gated = 0;
    e->gate = gate ? *gate : (tc_shm_gate){ NULL, NULL, 0, 0, 0, 0 };
    e->truncation = e->err = MPI_SUCCESS;
    e->env = (tc_exec_env){ comm, &e->ws, area, node_idx, NULL, op, NULL };
    e->ws.rank1 = me + 1;
    rc = again ? MPI_SUCCESS : prepare(e, s, op, area);
    if (rc == MPI_SUCCESS) {
        if (e->gate.home && e->gate.after && !tc_shm_gate_open(&e->gate)) {
            e->gated = 1;   /* the area's previous call still runs somewhere on the node */
            return MPI_SUCCESS;
        }
        rc = start_now(e);
    }
    if (rc != MPI_SUCCESS) mark_done(e);   /* not run: the node's next call on the area may */
    return rc;
}

void tc_nb_exec_free(tc_nb_exec *e)
{
    tc_workspace_free(&e->ws);
    memset(e, 0, sizeof *e);
}
