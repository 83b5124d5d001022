/*
 * Learning during the run, the MPI side (see src/select/learn.h for the
 * state machine and docs/learning.md for the user's view): the learner of a
 * call's key on its context, the run's timing, the one reduction per round
 * that agrees on the timings (nonblocking, on the context's private
 * communicator, started and waited at calls every rank reaches alike), the
 * choice it makes for the call, and the fast path's count of the calls it
 * serves.
 */
#ifndef TC_API_LEARN_CALL_H
#define TC_API_LEARN_CALL_H

#include "api/call.h"
#include "select/learn.h"

/* A key's learner on a context and its times between a reduction's start and finish. */
typedef struct tc_learn_slot {
    tc_learner l;
    double send[TC_LEARN_NRED], recv[TC_LEARN_NRED];   /* the times kept at a start, the agreed ones */
    int np, nnodes, ppn;
    int nb_raced;              /* the nonblocking calls' race ran for the key (nb_race.c) */
    const tc_algo *nb_winner;  /* its fastest nonblocking form (NULL: none timed) */
    int nb_reraces;            /* races again for a change of the application's usage */
} tc_learn_slot;

/* What the call path keeps for one call between the choice and its end. */
typedef struct tc_learn_ticket {
    tc_learn_slot *slot;   /* NULL: not learning (nothing else set) */
    tc_learn_plan plan;
    const tc_algo *algo;   /* what the learner chose (the plan's candidate, or the default) */
    int k;                 /* the candidate run, -1: the default choice */
    uint64_t ns;           /* the run's time (0: not run whole) */
} tc_learn_ticket;

/* Whether calls of collective coll by selection learn (TOPOCOLL_LEARN on,
 * no TOPOCOLL_<COLL> forced). */
int tc_learn_on(const tc_config *cfg, topocoll_coll coll);
/* The entry for a call by selection: tc_bind_selected's when not learning,
 * else the learner's (its reduction started or finished here); *t filled. */
int tc_learn_bind(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al, tc_learn_ticket *t);
/* The call is done (al: what ran; rc: its outcome): timings recorded, the
 * call counted.  Always called after a successful tc_learn_bind. */
void tc_learn_end(tc_ctx *x, tc_learn_ticket *t, const tc_algo *al, int rc);
/* After tc_memo_remember: let the fast path serve the settled winner until
 * the learner's next re-check, or not at all while exploring. */
void tc_learn_memo(tc_ctx *x, topocoll_coll coll, const tc_learn_ticket *t);
/* Count the calls the fast path served into the memo's learner. */
static inline void tc_learn_memo_flush(tc_call_memo *m)
{
    if (!m->learn) return;
    m->learn->calls += m->learn_base - m->learn_left;
    m->learn_base = m->learn_left;
}
/* A key still patient (the run summary): its collective, communicator
 * shape, classes, calls so far and the patience it waits for. */
typedef struct tc_learn_wait {
    topocoll_coll coll;
    int np, nnodes, ppn, size_class, op_class, patience;
    uint64_t calls;
} tc_learn_wait;
/* The keys of this process still patient, those of freed communicators
 * included (one per key shape: the most calls); returns the count (at
 * most max written; the total when out is NULL). */
int tc_learn_waiting(tc_learn_wait *out, int max);
/* The candidates the settled learner of the call's key timed, fastest
 * first by their agreed times (the MPI library's own left out: its
 * nonblocking collective is not the blocking one it timed); 0 where the
 * key has no settled learner.  The same on every rank at the same call. */
int tc_learn_ranked(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **out, int max);
/* A persistent request's init (learn_at_init.c): the call's key's learner,
 * made here where it had none: 1 where it has not settled, 0 where it has,
 * -1 where there is none (learning off, memory short).  Every rank alike at
 * the same call. */
int tc_learn_prepare(tc_ctx *x, const tc_call *c, const tc_args *a);
/* Then, where every rank's key is prepared: it learns from its next call
 * on, without patience or gauging. */
void tc_learn_hurry(tc_ctx *x, const tc_call *c, const tc_args *a);
/* The call's key's learner, or NULL where it has none yet (local). */
tc_learn_slot *tc_learn_find(tc_ctx *x, const tc_call *c, const tc_args *a);
/* Has the call's key a settled learner (no reduction in flight)? */
int tc_learn_settled(tc_ctx *x, const tc_call *c, const tc_args *a);
/* Release a context's learners (waits for a reduction in flight: every
 * rank started it). */
void tc_learn_ctx_free(tc_ctx *x);

#endif
