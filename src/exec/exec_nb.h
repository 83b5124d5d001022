/*
 * The nonblocking executor: one started schedule, advanced without waiting.
 *
 A schedule that tc_sched_nonblocking_why accepts (messages, copies and
 * reductions only) runs round by round as in the blocking executor, with
 * the same phases (exec_mpi.h: post the round's messages, run its local
 * ops while they fly), except that the round's end is asked with
 * MPI_Testall instead of waited for: tc_nb_exec_progress runs as many
 * rounds as complete without waiting and returns.  A start only posts the
 * first round's messages: its local ops run in the next progress call (so
 * the start returns at once and the copying happens in the caller's tests),
 * except in schedules on node-shared memory, whose local ops are what the
 * peers wait for.
 *
 * With an area of node-shared memory of its own (a persistent request's,
 * src/api/nb_areas.h) it also runs the schedules on node-shared memory:
 * SHM regions in the area's data window (its halves alternating between
 * starts as between blocking calls), signals raised after the round's
 * local ops, and waits looked at without waiting (tc_shm_try_wait) once
 * the round's messages have completed; and the schedules on the inline
 * lines alone (the area's slots), whose ops run in order in one pass, a
 * PUBLISH or COLLECT only when it would not wait.  Several operations may
 * be outstanding on one communicator: each carries its own tag (every rank
 * starts them in the same order, so the k-th operation's tag is the same
 * everywhere) and its own scratch, requests and pack buffer.
 *
 * Errors: a truncated receive is recorded as the operation's error and the
 * schedule runs on to its end (the peers' messages still match); there is
 * no error tag as in the blocking protocol, so a peer of a rank that saw a
 * truncation learns of it only from its own receives.  Any other error
 * stops the operation at once (its posted requests cancelled and
 * completed).
 */
#ifndef TC_EXEC_NB_H
#define TC_EXEC_NB_H

#include "exec/exec_mpi.h"
#include "exec/reduce_kernels.h"

typedef struct tc_nb_exec {
    const tc_sched *s;
    tc_bind bind[TC_NBUF];
    tc_workspace ws;       /* the operation's own requests, scratch, pack buffer */
    tc_exec_env env;       /* env.ws is &ws */
    tc_reduce_kernel k;
    int me, tag;
    int round;             /* the round in flight (s->nrounds: done) */
    int wait_at;           /* its next WAIT op to look at (after its messages) */
    int lines;             /* a schedule on the inline lines: */
    int op_at;             /*   its next op, */
    tc_exec_lines ln;      /*   the lines' call */
    tc_shm_gate gate;      /* a ring call's (home NULL: none; done: NULL again) */
    int gated;             /* not started yet: waits for the gate */
    int nreq;              /* its posted requests */
    int local_due;         /* the round's local ops have not run yet */
    int truncation;        /* the first truncation seen (MPI_SUCCESS: none) */
    int err;               /* a hard error that stopped the operation */
} tc_nb_exec;

/* Can s run here, with an area of node-shared memory of its own (area 1)
 * or without one (0)?  NULL when it can, else why not. */
const char *tc_nb_exec_why(const tc_sched *s, int area);
/* Bind scratch, then start s (bind[TC_BUF_SEND], bind[TC_BUF_RECV] set by
 * the caller; the rest here) on comm with tag; advances as far as it goes.
 * area: the node-shared memory of the schedules that use it (NULL: none;
 * reserved for s beforehand, so that the start makes no collective call),
 * node_idx: rank -> its index in the node.  An area taken in turn (the
 * nonblocking calls' ring): gate (NULL: none) says which, and the call's
 * number, stored in this rank's done word when it ends; the schedule
 * begins once the gate opens.  The memory in e->ws is kept for the next
 * start (persistent operations).  again: e started s before with the same
 * buffers, op and area and that start succeeded (a persistent operation's
 * later starts): the checks, the scratch's bindings and the reduction
 * kernel of that start are kept. */
int tc_nb_exec_start(tc_nb_exec *e, const tc_sched *s, MPI_Comm comm, int me, int tag, MPI_Op op, tc_shm *area,
                     const int *node_idx, const tc_shm_gate *gate, int again);
/* Advance; *done 1 when the schedule has run to its end (or stopped on an
 * error).  Returns MPI_SUCCESS; the operation's outcome is
 * tc_nb_exec_result once done. */
int tc_nb_exec_progress(tc_nb_exec *e, int *done);
/* The outcome of a finished operation: its hard error, else its first
 * truncation, else MPI_SUCCESS. */
static inline int tc_nb_exec_result(const tc_nb_exec *e)
{
    return e->err != MPI_SUCCESS ? e->err : e->truncation;
}
/* Release the operation's memory (not the schedule). */
void tc_nb_exec_free(tc_nb_exec *e);

#endif
