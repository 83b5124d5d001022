/*
 * One collective call from start to end (see call.h): the fast path
 * (memo.c); else the communicator and its context (collective, on the
 * first call, by every rank whatever its other arguments), the record's
 * checks (call_args.c), the entry (bind.c), TOPOCOLL_CHECK's agreement,
 * the node-shared budget's plan, the run (run.c, pieces.c), the memo; the
 * run summary's count and time around it all when TOPOCOLL_STATS is on.
 */
#include <stdio.h>

#include "api/alltoallw.h"
#include "api/call.h"
#include "api/nb_areas.h"
#include "api/nb_race.h"
#include "api/check.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/learn_call.h"
#include "api/shm_budget.h"
#include "api/stats.h"

/* A call by selection that the MPI library serves without a context
 * (tc_ctx_for_call): checked as any other, then its own collective. */
static int run_without_context(tc_call *c)
{
    int rc = tc_call_check(c);
    if (rc != MPI_SUCCESS) return rc;
    tc_explain_native(c->d->name, c->size, c->rank, c->bytes, c->size == 1 ?
                      "one rank: no context" : "a new communicator's first calls: no context yet");
    rc = tc_run_native(c);
    if (c->mismatch) return tc_call_signature_error(c);   /* whatever the erroneous call ran into */
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* The record checked on a context: the per-peer vectors made, and *cut the
 * call the schedules see (a mismatch: the counts of equal bytes, see
 * tc_call_signature_error).  TOPOCOLL_CHECK: a failure is agreed on. */
static int checked(tc_ctx *x, tc_call *c, const tc_config *cfg, tc_call *cut)
{
    int rc;
    if ((rc = tc_call_check(c)) != MPI_SUCCESS)   /* TOPOCOLL_CHECK: the others learn of it */
        return cfg->check_on ? tc_check_failed(x, c->comm, c->fn, c->d, rc) : rc;
    if (c->d->vcounts && (rc = tc_call_make_vcounts(c)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    *cut = *c;
    if (!c->mismatch) return MPI_SUCCESS;
    tc_call_equal_counts(c, &cut->scount, &cut->rcount);
    if (cut->scount != 0 || cut->rcount != 0) return MPI_SUCCESS;
    rc = tc_call_signature_error(c);
    return cfg->check_on ? tc_check_failed(x, c->comm, c->fn, c->d, rc) : rc;
}

/* TOPOCOLL_CHECK: every rank agrees on the call, or all fail. */
static int agreed(tc_ctx *x, const tc_call *c, const tc_algo *al)
{
    return tc_check(x, c->comm, &(tc_check_call){ c->fn, c->d, al, c->root, c->op, c->rtype,
        { c->scount, c->rcount }, { c->tsize[0], c->tsize[1] }, { c->use[0], c->use[1] },
        { c->vcnt[0], c->vcnt[1] }, c->in_place });
}

/* The budget's plan cut the call into pieces of `piece` elements (not
 * remembered: every such call plans again). */
static int run_in_pieces(tc_ctx *x, const tc_call *c, const tc_config *cfg, const tc_algo *al,
                         const tc_args *a, int64_t piece)
{
    if (cfg->explain) {
        char why[96];
        snprintf(why, sizeof why, "in pieces of %lld elements: TOPOCOLL_SHM_BUDGET", (long long)piece);
        tc_explain(x, c->d->name, c->bytes, al->name, why);
    }
    int rc = tc_pieces_run(x, al, c, a, piece);
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* The record an entry runs with: the schedules see the cut counts, the MPI
 * library's own collective the user's. */
static const tc_call *record_for(const tc_algo *al, const tc_call *c, const tc_call *cut)
{
    return al->generate ? cut : c;
}

/* Run the entry whole; a direct entry whose slots could not be had (before
 * anything moved) is chosen again without node-shared memory. */
static int run_whole(tc_ctx *x, const tc_call *c, const tc_call *cut, tc_args *a, const tc_algo **al,
                     const tc_sched **s)
{
    int rc = tc_run(x, *al, record_for(*al, c, cut), a, s);
    if (rc != MPI_SUCCESS && ((*al)->req & TC_REQ_INLINE) && tc_shm_budget_failed(x, c->d->coll) &&
        (rc = tc_bind_without_shm(x, c, a, al, "node-shared memory could not be had")) == MPI_SUCCESS)
        rc = tc_run(x, *al, record_for(*al, c, cut), a, s);
    return rc;
}

/* The chosen entry run: agreement (TOPOCOLL_CHECK), the budget's plan,
 * the run (timed for the learner: the run alone); *whole: it ran whole
 * (not in pieces), so the memo may keep it. */
static int run_chosen(tc_ctx *x, tc_call *c, const tc_config *cfg, const tc_call *cut, tc_args *a,
                      const tc_algo **al, const tc_sched **s, tc_learn_ticket *lt, int *whole)
{
    int64_t piece;
    int rc;
    *s = NULL;
    *whole = 0;
    if (cfg->check_on && (rc = agreed(x, c, *al)) != MPI_SUCCESS) return rc;
    /* (the check first: a rank whose arguments failed joins it, not the
     * plan's agreement; the plan's inputs are agreed, so is its outcome) */
    if ((rc = tc_bind_shm_plan(x, cut, a, al, &piece)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (piece > 0) return run_in_pieces(x, c, cfg, *al, a, piece);
    /* An explained call delays the ranks that print its line (rank 0, a few
     * microseconds a line), and the others' run would then time the wait
     * for them: where any rank explains, the learner's timed calls start
     * together, so that TOPOCOLL_EXPLAIN does not change what it explains. */
    if (lt->slot && lt->plan.timed && x->explaining && (rc = PMPI_Barrier(c->comm)) != MPI_SUCCESS)
        return tc_raise_mpi(c->comm, rc, c->fn);
    uint64_t t0 = lt->slot ? tc_stats_now() : 0;   /* integers: no floating-point flag raised */
    rc = run_whole(x, c, cut, a, al, s);
    *whole = 1;
    if (lt->slot) lt->ns = tc_stats_now() - t0;
    if (c->mismatch) return tc_call_signature_error(c);   /* whatever the erroneous call ran into */
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* The full path on a context x: checks, choice (by_name: the named entry,
 * else TOPOCOLL_<COLL>, the learner or the selection), plan, run, memo. */
static int call_on_context(tc_ctx *x, tc_call *c, const tc_config *cfg, int by_name, const char *algorithm)
{
    tc_call cut;
    tc_args a;
    const tc_algo *al = NULL;
    const tc_sched *s;
    tc_learn_ticket lt = { 0 };
    int scount = c->scount, rcount = c->rcount;   /* the user's, before the checks complete them */
    int whole, rc = checked(x, c, cfg, &cut);
    if (rc != MPI_SUCCESS) return rc;
    tc_call_make_ctx_args(&cut, x, &a);
    rc = by_name ? tc_bind_named(x, c, &a, algorithm, &al) : tc_learn_bind(x, c, &a, &al, &lt);
    if (rc != MPI_SUCCESS) return rc;
    rc = run_chosen(x, c, cfg, &cut, &a, &al, &s, &lt, &whole);
    tc_learn_end(x, &lt, al, rc);   /* every call counted, whatever its outcome */
    if (rc == MPI_SUCCESS && whole && !c->d->vcounts) {   /* per-peer: no memo */
        tc_memo_remember(x, c, &a, al, s, by_name);
        tc_learn_memo(x, c->d->coll, &lt);
        tc_memo_note_counts(x, c, &lt);
    } else if (rc == MPI_SUCCESS && whole && !by_name) {   /* per-peer: a learned choice only */
        tc_memo_remember_per_peer(x, c, &a, al, &lt, scount, rcount);
    }
    return rc;
}

/* The whole call.  Inlined into tc_call_collective so that the summary's
 * test adds no call on the way. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int call_collective(tc_call *c, const tc_config *cfg, int by_name, const char *algorithm)
{
    int rc;
    if (c->d->vcounts ? !by_name && tc_memo_vec_call(c, cfg, &rc)
                      : tc_memo_call(c, cfg, by_name ? (algorithm ? algorithm : "") : NULL, &rc))
        return rc;
    if (c->d->coll == TOPOCOLL_ALLTOALLW) return tc_alltoallw_call(c, by_name, algorithm);   /* per-peer types */
    /* the context first (collective over comm, made on its first call), so
     * that every rank of a valid communicator takes part, even one whose
     * other arguments are wrong; those are checked locally after */
    if ((rc = tc_call_check_comm(c)) != MPI_SUCCESS) return rc;
    tc_ctx *x;
    /* by name or under TOPOCOLL_CHECK: the full context at once */
    rc = by_name || cfg->check_on ? tc_ctx_get(c->comm, &x)
                                  : tc_ctx_for_call(c->comm, c->d->coll, c->size, &x);
    if (rc != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (!x) return run_without_context(c);
    /* asked for by a nonblocking call, made here by every rank alike (its
     * failure is the ring's absence, not the call's) */
    if (x->ring_want) (void)tc_nb_ring_make(x);
    /* asked for by a key's nonblocking calls (nb_race.c): every rank alike */
    if (x->race_want) tc_nb_race_run(x);
    return call_on_context(x, c, cfg, by_name, algorithm);
}

/* The call timed and counted for the run summary (TOPOCOLL_STATS): the
 * algorithm that served it (this thread's last), its bytes, its time. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int counted_collective(tc_call *c, const tc_config *cfg, int by_name, const char *algorithm)
{
    uint64_t t0 = tc_stats_now();
    int rc = call_collective(c, cfg, by_name, algorithm);
    uint64_t t1 = tc_stats_now();
    if (rc == MPI_SUCCESS) tc_stats_record(c->d->coll, c->size, topocoll_last_algorithm(), c->bytes, t1 - t0);
    return rc;
}

/* Every call: one test of the summary's flag, no timing when it is off
 * (the configuration read here is the one the fast path uses). */
int tc_call_collective(tc_call *c, int by_name, const char *algorithm)
{
    const tc_config *cfg = tc_config_get();
#if defined(__GNUC__)
    if (__builtin_expect(cfg->stats_on, 0)) return counted_collective(c, cfg, by_name, algorithm);
#else
    if (cfg->stats_on) return counted_collective(c, cfg, by_name, algorithm);
#endif
    return call_collective(c, cfg, by_name, algorithm);
}

int tc_call_collective_unrecorded(tc_call *c)
{
    return call_collective(c, tc_config_get(), 0, NULL);
}
