/*
 * The MPI executor: runs a schedule with PMPI_ calls only.  Per round it
 * posts every receive and send (nonblocking), runs the local copies and
 * reductions, raises its signals, then waits for the round's messages and
 * signals (semantics in sched/sched.h).
 *
 * Errors.  Counts that do not match between two ranks are the user's error,
 * but must not hang.  A receive that fails with class MPI_ERR_TRUNCATE (the
 * data up to the posted size did arrive) is recorded as the call's error and
 * the schedule runs on to its end (every later send, receive, copy, signal
 * and wait), so that no peer is left waiting; the rank's later sends carry a
 * second tag, and a rank that receives such a message takes MPI_ERR_TRUNCATE
 * as its own error too (the message may carry data of the truncated one:
 * conservative, any later send is marked).  The first truncation is
 * returned at the end.  A short receive (fewer elements arrived than
 * posted) is no error in MPI and none here.  Neither kind of mismatch
 * changes how many messages two ranks exchange: the schedules take sizes
 * from each rank's own arguments or from rows both sides exchanged before
 * (alltoallv's node counts), and MPI matches messages by envelope, not
 * size; only a part that is empty at one side only (zero-count operations
 * are dropped) can leave a message unmatched.  A signal raised after a
 * truncation passes the error on as such a message does
 * (tc_shm_signal_error: exact where the waiter waits before the signaller
 * can signal it again in a later call, as in the hierarchical schedules).  Any other
 * error stops the schedule at once: posted requests are cancelled and
 * completed, and the error is returned.
 */
#ifndef TC_EXEC_MPI_H
#define TC_EXEC_MPI_H

#include <mpi.h>
#include "exec/shm.h"
#include "exec/shm_inline.h"
#include "exec/subcoll.h"
#include "sched/sched.h"

/* What a logical buffer is bound to for one call. */
typedef struct tc_bind {
    char *base;          /* address of element 0 (NULL allowed for count 0) */
    MPI_Datatype type;
    MPI_Aint extent;     /* element stride (the type size when packed) */
    MPI_Aint true_lb, true_extent;
    int size;            /* type size in bytes */
    int contiguous;      /* elements are dense bytes: memcpy works */
    int packed;          /* elements stored packed (SHM): MPI_PACKED on the wire */
} tc_bind;

/* Reusable per-communicator memory: requests and their statuses, scratch,
 * pack buffer. */
typedef struct tc_workspace {
    MPI_Request *reqs;
    MPI_Status *stats;     /* [nreqs] */
    int nreqs;
    char *tmp;
    size_t tmp_bytes;
    char *pack;
    size_t pack_bytes;
    char *stage;           /* the API's staging copy (bcast of derived types) */
    size_t stage_bytes;
    int rank1;             /* this rank in the communicator + 1; 0 until the first run */
} tc_workspace;

/* Everything a run needs besides the schedule and the user buffers. */
typedef struct tc_exec_env {
    MPI_Comm comm;          /* private communicator */
    tc_workspace *ws;
    tc_shm *shm;            /* node-shared memory (schedules that use it) */
    const int *node_idx;    /* rank -> index in its node (= node_comm rank) */
    const int *node_of;     /* rank -> node (member-set communicators) */
    MPI_Op op;              /* for REDUCE ops; MPI_OP_NULL when none */
    tc_subcomms *sub;       /* member-set communicators (schedules with SUBCOLL rounds:
                               made before the first round, collective over comm) */
} tc_exec_env;

/* Fill extent/size/contiguity of b->type. */
int tc_bind_type(tc_bind *b, void *base, MPI_Datatype type);

/* Run s.  bind[TC_BUF_TMP] and bind[TC_BUF_SHM] are filled here from
 * bind[s->tmp_like], the workspace and the node-shared memory.  Counts
 * and byte sizes are 64-bit: a region beyond MPI's int counts travels as
 * one message of a datatype made for it, local copies and reductions go in
 * pieces.  Returns an MPI error code (MPI_ERR_TRUNCATE after running the
 * schedule to its end; see "Errors" above). */
int tc_exec(const tc_sched *s, tc_bind bind[TC_NBUF], const tc_exec_env *env);

/* Pack n elements of b's type from src into dst (n x b->size bytes), and
 * back, in pieces whose byte counts an int holds (n may exceed INT_MAX). */
int tc_pack_elems(const char *src, int64_t n, const tc_bind *b, char *dst, MPI_Comm comm);
int tc_unpack_elems(const char *src, char *dst, int64_t n, const tc_bind *b, MPI_Comm comm);

/* ---- the phases of a round, shared with the nonblocking executor --------- */

/* The tags a round's messages carry: sends to others, receives from others
 * (MPI_ANY_TAG in a blocking run: either tag of its error protocol),
 * messages to and from this rank itself. */
typedef struct tc_exec_tags { int send, recv, self; } tc_exec_tags;
/* Post the SEND and RECV ops among ops b..e-1 in order, into reqs[*nreq..]. */
int tc_exec_post(const tc_sched *s, int b, int e, const tc_bind *bind, MPI_Comm comm, int me,
                 tc_exec_tags tags, MPI_Request *reqs, int *nreq);
/* One COPY or REDUCE op; _in_flight: while messages are in flight (in
 * pieces, the MPI library looked at between them). */
struct tc_reduce_kernel;
int tc_exec_local(const tc_bind *bind, const tc_op *op, const tc_exec_env *env,
                  const struct tc_reduce_kernel *k);
int tc_exec_local_in_flight(const tc_bind *bind, const tc_op *op, const tc_exec_env *env,
                            const struct tc_reduce_kernel *k);
/* bind[TC_BUF_TMP] from bind[s->tmp_like] and ws's scratch. */
int tc_exec_bind_tmp(const tc_sched *s, tc_bind bind[TC_NBUF], tc_workspace *ws);
/* bind[TC_BUF_SHM]: tmp_like's elements packed in the node-shared data
 * window of sh, reserved for s (collective over the node when it grows) and
 * this run's half taken. */
int tc_exec_bind_shm(const tc_sched *s, tc_bind bind[TC_NBUF], tc_shm *sh);
/* A schedule on the inline lines: the lines' call, the element's bytes in
 * the slots (tmp_like's, packed), the other ranks collected from, the first
 * error of a PUBLISH or COLLECT (which never stops the schedule: the node's
 * peers wait for this rank's publication and done line), and my rank. */
typedef struct tc_exec_lines {
    tc_inline_call ic;
    int64_t line_elem;
    int collected;
    int err;
    int me;
} tc_exec_lines;
/* A PUBLISH or a COLLECT op (their waits, tc_inline_publish's and
 * tc_inline_collect's, return at once when tc_inline_room_ready and
 * tc_inline_ready say so). */
void tc_exec_line_publish(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, tc_exec_lines *ln);
void tc_exec_line_collect(const tc_bind *bind, const tc_op *op, const tc_exec_env *env, tc_exec_lines *ln);
/* At least n requests and statuses in ws. */
int tc_exec_ensure_requests(tc_workspace *ws, int n);
/* After a failed MPI_Waitall or MPI_Testall (rc) of n requests: each
 * request's own error; a truncation goes to *truncation (the first kept) and
 * is not returned; on any other error the pending requests are cancelled
 * and completed and the first such error returned. */
int tc_exec_request_errors(int n, MPI_Request *reqs, MPI_Status *stats, int *truncation, int rc);

void tc_workspace_free(tc_workspace *ws);
/* Grow ws->stage to at least n bytes. */
int tc_workspace_stage(tc_workspace *ws, size_t n);

#endif
