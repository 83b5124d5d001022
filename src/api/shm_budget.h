/*
 * Node-shared memory within a budget, and its failure made collective.
 *
 * Budget.  The data window of a communicator (both halves together) holds
 * at most TOPOCOLL_SHM_BUDGET bytes (default 16 MiB: a 64 MiB /dev/shm,
 * Docker's default, keeps room for the MPI library's own segments and a few
 * communicators).  A call whose schedule would need more runs in pieces
 * where the collective's data are element-wise separable (allreduce,
 * reduce, bcast: the same algorithm on consecutive element ranges, each
 * piece within the budget, scratch bounded by the piece too); any other
 * collective, or an entry that declines the piece, takes an algorithm
 * without node-shared memory for the call.  The need is the largest over
 * the topology's nodes (the schedules of one rank per kind of node), so
 * every rank of the communicator decides alike without a message.
 *
 * Failure.  The windows are made before the schedule runs, by every rank
 * of the communicator at the same call (the decision above is everyone's);
 * the node agrees before the MPI library allocates (room in its backing
 * store, src/exec/shm_room.h) and after (its outcome, src/exec/shm.c), and
 * the communicator agrees on the nodes' outcomes.  A window that cannot be
 * had turns the context's node-shared memory off on every rank, one line
 * on stderr says why (once per process), and the call is chosen again
 * among the algorithms without node-shared memory, a forced one included.
 */
#ifndef TC_API_SHM_BUDGET_H
#define TC_API_SHM_BUDGET_H

#include <stdint.h>
#include "api/context.h"

/* The data window's budget in bytes, both halves (TOPOCOLL_SHM_BUDGET;
 * a malformed value is reported once and the default taken). */
uint64_t tc_shm_budget(void);

/* Bytes per half of the data window that al needs for a (the largest over
 * the nodes of t; the same on every rank): esz are the element sizes of
 * SEND and RECV as the executor binds them.  0: none; -1: no memory to
 * find out. */
int64_t tc_shm_need(const tc_algo *al, const tc_args *a, const tc_topo *t, const int64_t esz[2]);

/* Make the flags and the data window (need bytes per half) on every node,
 * collectively over x's communicator.  *ok: 1 on every rank, or 0 on every
 * rank when some node could not have them; then x's node-shared memory is
 * off for good (x->node_shm = 0, the call memos dropped) and one line on
 * stderr said why.  coll: the call's collective (a forced algorithm's
 * decline is that line). */
int tc_shm_budget_prepare(tc_ctx *x, int64_t need, topocoll_coll coll, int *ok);

/* After a direct entry (one node) returned an error: whether it was its
 * slots that could not be had (every rank of the node alike); if so, x's
 * node-shared memory is turned off as above. */
int tc_shm_budget_failed(tc_ctx *x, topocoll_coll coll);

#endif
