/*
 * One collective call as the API sees it: the argument record, and the
 * steps of the call path that read it.
 *
 * The record (tc_call) is filled once per call: the public entry point
 * describes the user's arguments (collectives.c), the checks complete it
 * from the collective's descriptor (src/coll/desc.h): rank and size, in
 * place, the significant buffers and their type sizes, the per-peer vectors
 * in 64 bits, whether the signatures differ, and the message's bytes.
 * Every later step (binding, running, the memo, the run summary) reads
 * these; none computes them again.
 *
 * The path, one file per concern:
 *   collectives.c  the public entry points: describe the call, hand it on
 *   call.c         one call from start to end: context, checks, binding,
 *                  the node-shared budget's plan, running, the run summary
 *   call_args.c    the record's checks (MPI's rules as the descriptor
 *                  states them) and its normalisation into tc_args
 *   bind.c         which catalog entry serves the call: by name, by
 *                  selection, the fallbacks; the node-shared budget's plan
 *   run.c          running the entry: a schedule (cached or per call), a
 *                  composition, a direct shared-memory protocol, the
 *                  per-node counts, the MPI library's own (native.c)
 *   native.c       the MPI library's own collective, one per descriptor row
 *   pieces.c       a separable call in pieces within the node-shared budget
 *   memo.c         the fast path: a call repeating the last one's scalars
 *   memo_vec.c     the same for the per-rank-count collectives' schedules
 *
 * Errors that only some ranks see must not hang the others where the MPI
 * library's own collective would not: the communicator is checked first and
 * its context made (collective, on the first call) by every rank, whatever
 * its other arguments; those are checked locally after.  Before a schedule
 * that reduces, every rank asks the MPI library whether it takes the op on
 * the datatype (tc_call_check_op), so an invalid pair is an error
 * everywhere, not only at the ranks that combine data.
 */
#ifndef TC_API_CALL_H
#define TC_API_CALL_H

#include <stdint.h>

#include "topocoll.h"
#include "api/context.h"
#include "coll/desc.h"
#include "core/config.h"
#include "core/thread_local.h"

typedef struct tc_call {
    const tc_coll_desc *d;
    const char *fn;         /* the public function, for messages */
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
    int64_t bytes;          /* bytes per rank (tc_call_check; the memo's on
                               the fast path): the selection's message size,
                               the explain line's, the run summary's */
    /* per-peer collectives (desc vcounts): the user's vectors; scount and
     * rcount then hold the largest count (what the buffer checks look at) */
    const int *vcnt[2], *vdispl[2];
    const MPI_Datatype *vtype[2];   /* a datatype per peer (alltoallw), else NULL */
    int64_t *v64;           /* their 64-bit copies for tc_args.v (4 x size) */
    tc_vcounts v;
    int staged;             /* one block per rank (desc vblock): the user's
                               displacements are not the packed layout, RECV is
                               staged (run.c) */
    int mismatch;           /* send and receive signatures differ here: the
                               call runs (so that no peer waits), then fails */
} tc_call;

static inline const void *tc_call_buf(const tc_call *c, int b) { return b == TC_BUF_SEND ? c->sbuf : c->rbuf; }
static inline int tc_call_count(const tc_call *c, int b) { return b == TC_BUF_SEND ? c->scount : c->rcount; }
static inline MPI_Datatype tc_call_type(const tc_call *c, int b) { return b == TC_BUF_SEND ? c->stype : c->rtype; }

/* ---- call.c ---- */

/* The whole call (by_name: algorithm names the entry, else TOPOCOLL_<COLL>
 * or the selection): MPI_SUCCESS or the error raised on c->comm. */
int tc_call_collective(tc_call *c, int by_name, const char *algorithm);
/* The same by selection, left out of the run summary (a persistent init's
 * learning calls on scratch buffers, learn_at_init.c). */
int tc_call_collective_unrecorded(tc_call *c);
/* A persistent request's init: its key learned on scratch buffers before
 * the request chooses, then the persistent forms of the fastest entries
 * timed (TOPOCOLL_LEARN_INIT; learn_at_init.c); returns the fastest of
 * those, or NULL (none timed: the usual choice).  Every rank that reaches
 * the init's choice calls it; the answer is the same on every rank. */
const tc_algo *tc_learn_at_init(tc_ctx *x, const tc_call *c, const tc_args *a);

/* ---- call_args.c ---- */

/* The communicator: valid, an intra-communicator; sets rank and size. */
int tc_call_check_comm(tc_call *c);
/* MPI's rules, as the descriptor states them (local: the context was made
 * before); completes the record (in place, use, tsize, mismatch, bytes). */
int tc_call_check(tc_call *c);
/* Would the MPI library's reduction take the call's op on its type (asked
 * on every rank alike)?  MPI_SUCCESS or its error code. */
int tc_call_check_op(const tc_call *c);
/* The per-peer vectors in 64 bits into c->v (allocated: c->v64). */
int tc_call_make_vcounts(tc_call *c);
/* The error of a call whose send and receive signatures differ. */
int tc_call_signature_error(const tc_call *c);
/* The counts of equal bytes at or below both sides' (0 when none). */
void tc_call_equal_counts(const tc_call *c, int *scount, int *rcount);
/* The counts the generators see (desc.h), consistent on every rank. */
void tc_call_make_args(const tc_call *c, tc_args *a);
/* tc_call_make_args and the context's inputs (node_shm, load, cma). */
void tc_call_make_ctx_args(const tc_call *c, const tc_ctx *x, tc_args *a);
/* Every significant type's size fits an int (else no schedule serves it). */
int tc_call_sizes_fit(const tc_call *c);
/* Why a call whose type size exceeds an int declines every schedule. */
extern const char *const tc_call_size_unknown;
/* Predefined datatypes and ops: handles that always mean the same thing. */
int tc_call_type_named(MPI_Datatype t);
int tc_call_op_predefined(MPI_Op op);

/* ---- bind.c ---- */

/* The entry named algorithm, if it accepts the call; else the error. */
int tc_bind_named(const tc_ctx *x, const tc_call *c, const tc_args *a, const char *algorithm,
                  const tc_algo **al);
/* The entry TOPOCOLL_<COLL> or the selection chooses (native where it
 * cannot describe the call's sizes). */
int tc_bind_selected(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al);
/* The same with a note added to its explain text (NULL: none). */
int tc_bind_selected_noted(tc_ctx *x, const tc_call *c, const tc_args *a, const char *note, const tc_algo **al);
/* The node-shared budget's plan for *al: *piece 0 runs the call whole,
 * else in pieces of that many elements; *al may become an entry without
 * node-shared memory (see shm_budget.h). */
int tc_bind_shm_plan(tc_ctx *x, const tc_call *c, tc_args *a, const tc_algo **al, int64_t *piece);
/* The call chosen again among the entries without node-shared memory. */
int tc_bind_without_shm(tc_ctx *x, const tc_call *c, tc_args *a, const tc_algo **al, const char *why);
/* The element sizes of SEND and RECV as the executor binds them (an
 * insignificant buffer takes the other's type; byte schedules count
 * bytes). */
void tc_call_bound_sizes(const tc_call *c, int64_t esz[2]);
/* Would al serve the call (context x; the record checked here)? */
int tc_bind_applicable(tc_call *c, tc_ctx *x, const tc_algo *al, const char **why);

/* ---- run.c ---- */

/* The schedule cache's key of the call. */
tc_sched_key tc_run_key(const tc_algo *al, const tc_call *c, const tc_args *a);
/* Run al for the call; *used gets the cached schedule (NULL: none). */
int tc_run(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a, const tc_sched **used);
/* Run schedule s for the call. */
int tc_run_schedule(tc_ctx *x, const tc_sched *s, const tc_call *c, const tc_args *a);
/* SEND and RECV's bindings without their buffers (bases NULL; in place,
 * *alias_off: the alias's bytes from the other's base), for a collective
 * without per-peer counts or byte counts: what tc_run_schedule binds per
 * call, the same for every call of the same types, counts and args. */
int tc_run_bind_types(const tc_call *c, const tc_args *a, tc_bind b[2], MPI_Aint *alias_off);
/* The call's buffers into SEND and RECV's bindings of their types (b[0],
 * b[1]; in place, alias_off from tc_run_bind_types); _buffers: both steps. */
void tc_run_bind_bases(const tc_call *c, const tc_args *a, tc_bind *b, MPI_Aint alias_off);
int tc_run_bind_buffers(const tc_call *c, const tc_args *a, tc_bind *b);
/* tc_run_schedule with the bindings of tc_run_bind_types (the call's
 * buffers set into them). */
int tc_run_schedule_typed(tc_ctx *x, const tc_sched *s, const tc_call *c, const tc_args *a,
                          const tc_bind types[2], MPI_Aint alias_off);
/* An entry without a schedule: the MPI library's own collective. */
int tc_run_unscheduled(tc_ctx *x, const tc_algo *al, const tc_call *c);
/* A gatherv / scatterv entry with a schedule (desc vroot; run_rootedv.c):
 * the root's counts spread first where the entry reads them everywhere,
 * the root's vector buffer staged where its displacements are not packed. */
int tc_run_rootedv(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a);

/* ---- native.c ---- */

/* The MPI library's own collective for the call. */
int tc_run_native(const tc_call *c);
/* Its nonblocking form (MPI_I<coll>), or its persistent one (MPI-4's
 * MPI_<Coll>_init; MPI_ERR_UNSUPPORTED_OPERATION on an MPI-3 library). */
int tc_run_native_nb(const tc_call *c, int persistent, MPI_Info info, MPI_Request *req);

/* ---- nb_call.c ---- */

/* The whole nonblocking call (persistent: the _init form): *req is the
 * request; MPI_SUCCESS or the error raised on c->comm. */
int tc_nb_call(tc_call *c, int by_name, const char *algorithm, int persistent, MPI_Info info, MPI_Request *req);
/* The entries the key's settled learner timed, fastest first, that accept
 * the call and have a nonblocking form (area: with node-shared memory of
 * its own, as a persistent request or a call on the ring has; else none),
 * at most max into out. */
int tc_nb_ranked(tc_ctx *x, const tc_call *c, const tc_args *a, int area, const tc_algo **out, int max);
/* The rounds of al's nonblocking schedule for the call at this rank
 * (area: as for tc_nb_ranked); TC_RACE_ROUNDS_UNKNOWN (select/learn.h)
 * for the MPI library's own or an entry without a nonblocking form. */
uint64_t tc_nb_form_rounds(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, int area);
/* A nonblocking race's candidates (nb_race.c): the learner's fastest with
 * a nonblocking form (node-shared memory where the ring is made), the cost
 * model's fastest with one (none), the catalog's entry of fewest rounds
 * (one reduction over the communicator: collective), and the MPI
 * library's own; at most max. */
int tc_nb_race_candidates(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **out, int max);
/* Set while a persistent init times its candidates' requests: their starts
 * are left out of the run summary. */
extern TC_THREAD_LOCAL int tc_nb_trial;

/* ---- pieces.c ---- */

/* Elements per piece whose need (bytes per half, *need) fits half, or 0
 * when none does or the entry declines a piece. */
int64_t tc_pieces_size(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a,
                       const int64_t esz[2], int64_t half, int64_t *need);
/* A separable call in pieces of m elements (the budget's plan). */
int tc_pieces_run(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a, int64_t m);

/* ---- memo.c ---- */

/* Remember the call's choice on its context (named: chosen by name). */
void tc_memo_remember(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, const tc_sched *s,
                      int named);
/* A per-peer call by selection whose choice a settled learner made, or
 * TOPOCOLL_<COLL> forced where choosing it agrees on nothing: the
 * MPI library's own remembered for the pass-through (pass.h), which then
 * serves the communicator's next calls of that collective with the same
 * datatypes, root and op until the learner's next re-check, whatever their
 * counts (allgatherv: the same receive counts); one of topocoll's schedules
 * kept by memo_vec.c.  scount, rcount: the user's single counts. */
struct tc_learn_ticket;
/* After tc_memo_remember and tc_learn_memo: a one-count call (bcast, the
 * reductions) whose remembered choice is the MPI library's own, made by a
 * settled learner for the call's size class or forced by TOPOCOLL_<COLL>,
 * lets the pass-through serve the next calls of other counts in that size
 * class (forced: any count), and for bcast of any root (tc_call_memo's
 * any_count, any_root). */
void tc_memo_note_counts(tc_ctx *x, const tc_call *c, const struct tc_learn_ticket *lt);
void tc_memo_remember_per_peer(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al,
                               const struct tc_learn_ticket *lt, int scount, int rcount);
/* The nonblocking calls' memo (x->nb_memo): remember the choice (al: the
 * entry, with s its cached schedule; the MPI library's own entry with s
 * NULL); the memo that serves a call like the last one (the record
 * completed from it, *x its context), or NULL for the full path. */
void tc_memo_remember_nb(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, const tc_sched *s,
                         int named);
const tc_call_memo *tc_memo_nb(tc_call *c, const tc_config *cfg, const char *algorithm, tc_ctx **x);
/* Serve the call from its communicator's memo: 1 with *rc set, or 0 to
 * take the full path.  algorithm: the entry named, or NULL for the
 * selection's. */
int tc_memo_call(tc_call *c, const tc_config *cfg, const char *algorithm, int *rc);

/* ---- memo_vec.c ---- */

/* Calls the kept schedules served on this thread (tests). */
extern TC_THREAD_LOCAL unsigned long tc_memo_vec_served;

/* Whether the memo may keep al's schedule for the per-peer call c. */
int tc_memo_vec_keeps(const tc_call *c, const tc_algo *al);
/* Keep al's schedule for the call (its record completed, a its arguments;
 * scount, rcount: the user's single counts): 0, or -1 when it cannot. */
int tc_memo_vec_remember(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, int scount,
                         int rcount);
/* Serve a per-peer call by selection from its fast paths (the record's
 * pass-through test, then the kept schedule): 1 with *rc set, or 0 to take
 * the full path. */
int tc_memo_vec_call(tc_call *c, const tc_config *cfg, int *rc);

#endif
