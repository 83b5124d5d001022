/*
 * The nonblocking calls' race: which entry serves a key's nonblocking
 * calls, timed on this machine in their nonblocking form.
 *
 * Why.  A nonblocking call takes the fastest entry with a nonblocking form
 * among those the blocking call's learner timed (nb_call.c), but a blocking
 * call's time need not hold for the same entry's nonblocking form: each
 * round of a schedule waits for progress in the caller's MPI_Wait, and a
 * blocking call may run a direct protocol.  On the virtual 2 x 2 (4 ranks
 * on 2 cores), an 8-byte MPI_Ialltoall took h2_p2p, fastest blocking, at
 * 25 us a call and wait, where linear took 12 and the MPI library's own 12.
 * A nonblocking call may not wait for the other ranks, so it cannot time
 * candidates itself; the race runs at the communicator's next blocking
 * collective, a call every rank makes in the same order, as the ring of
 * node-shared areas is made (nb_areas.h).
 *
 * Steps:
 *   1. a key's nonblocking calls are counted (on the full path and, while
 *      the key may race, on the memo's path: every rank counts alike) where
 *      it may learn on scratch buffers (learn_scratch.h; predefined
 *      datatypes only, since its record outlives the call) and no race ran
 *      for it; at TOPOCOLL_LEARN_PATIENCE calls (at least one) the call
 *      takes the full path, its record is kept and the blocking calls'
 *      memos are dropped, so that every rank's next blocking call takes the
 *      full path (tc_nb_race_ask);
 *   2. that call runs the race before its own work (tc_nb_race_run):
 *      scratch buffers and one agreement, the key settled with blocking
 *      calls on them where it has not (tc_scratch_settle), the ring of
 *      node-shared areas made where the learner's fastest entries need it
 *      (as a nonblocking call choosing them would have it made), then the
 *      candidates' nonblocking forms timed, a call and its wait each
 *      (tc_scratch_race), as the application ran the key's calls where it
 *      computed between a call and its wait (nb_usage.h: that computation
 *      and its test calls between each trial's call and wait, the time in
 *      MPI counted): the learner's two fastest entries with one, the cost
 *      model's fastest with one (message rounds only: the learner times
 *      the blocking call's candidates, which may all be hierarchical), the
 *      entry of fewest rounds, and the MPI library's own nonblocking
 *      collective; the winner is kept with the key's learner and the
 *      nonblocking calls' memo of the collective dropped;
 *   3. the key's nonblocking calls take the winner first
 *      (tc_nb_race_winner); the MPI library's own where it won;
 *   4. where one of topocoll's entries won, the key is watched: every
 *      TC_NB_USAGE_EVERY-th call is sampled, and at TC_NB_CHECK_FIRST
 *      calls after the race, then twice as many each time, one call asks
 *      the next blocking call to compare (one reduction) the usage since
 *      the race with the one it timed; where any rank's now hides more
 *      (computation where there was none, test calls where there were
 *      none), the key races again, at most TC_NB_RERACES_MAX times.
 *      (The virtual 2 x 2's 8-byte MPI_Ibcast behind computation: the
 *      back-to-back race chose binomial or twotier_sockets, 5.4 to 9.7
 *      times the MPI library's exposed time; raced with the computation,
 *      linear won, 1 round, about 30 times faster than they in its race.)
 * Cost: once per key, inside one blocking collective: the settling where
 * the key had none (about 90 to 150 blocking calls), then 38 nonblocking
 * calls and waits for each of up to five candidates (with the application's
 * computation, up to TC_NB_USAGE_GAP_MAX each); nothing for a key called
 * fewer than TOPOCOLL_LEARN_PATIENCE times, or on a communicator without
 * blocking collectives.  A watched key: a sample (two clock reads and a
 * lock) every TC_NB_USAGE_EVERY-th call, and one reduction at each
 * comparison (about 13 in a million calls).  TOPOCOLL_LEARN_INIT=0 turns it
 * off with the persistent inits' learning.
 */
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "api/learn_call.h"
#include "api/learn_scratch.h"
#include "api/nb_areas.h"
#include "api/nb_race.h"
#include "api/nb_usage.h"

/* Are the call's significant datatypes predefined (handles that outlive
 * the call)? */
static int named_types(const tc_call *c)
{
    for (int b = 0; b < 2; b++)
        if (c->use[b] && !tc_call_type_named(tc_call_type(c, b))) return 0;
    return 1;
}

/* The call's record kept for the next blocking call, which runs the race
 * (check: only where some rank's usage changed); the blocking calls' memos
 * dropped so that every rank's next one takes the full path. */
static void keep_for_race(tc_ctx *x, const tc_call *c, int check)
{
    tc_call *kept = malloc(sizeof *kept);
    if (!kept) return;
    *kept = *c;
    kept->v64 = NULL;   /* (per-peer collectives are not eligible) */
    x->race_call = kept;
    x->race_want = 1;
    x->race_check = check;
    tc_memo_drop_blocking(x);
}

/* A watched key's call on the full path: counted towards its usage's next
 * comparison, as tc_nb_race_due counts on the memo's path. */
static void count_watched(tc_ctx *x, const tc_call *c)
{
    int coll = c->d->coll;
    if (++x->nb_since[coll] < x->nb_check_at[coll] || x->race_want) return;
    if (x->nb_check_at[coll] < TC_NB_CHECK_LAST) x->nb_check_at[coll] *= 2;
    keep_for_race(x, c, 1);
}

void tc_nb_race_ask(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_config *cfg = tc_config_get();
    int coll = c->d->coll;
    const tc_learn_slot *sl = tc_learn_find(x, c, a);
    if (x->nb_looked[coll] && x->nb_watch[coll]) {
        if (sl && sl->nb_raced) {
            count_watched(x, c);
            return;
        }
        x->nb_watch[coll] = 0;   /* another key of the collective: the memo's calls count for it now */
    }
    if (cfg->learn_init <= 0 || (sl && sl->nb_raced) || !tc_scratch_eligible(c) || !named_types(c)) {
        x->nb_looked[coll] = 1;   /* nothing to race for this key: the memo's calls stop counting */
        return;
    }
    x->nb_looked[coll] = 0;
    if (++x->nb_count[coll] < tc_nb_race_patience(cfg) || x->race_want) return;
    x->nb_count[coll] = 0;
    x->nb_looked[coll] = 1;   /* the race drops the memo: the next call looks again */
    keep_for_race(x, c, 0);
}

/* Where the learner's fastest entries with a nonblocking form run on
 * node-shared memory, the ring they need is made first (collective, as at
 * any blocking call: nb_areas.h), so that they race as the key's calls
 * would run them. */
static void make_ring_for(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_algo *top[2];
    int n = tc_nb_ranked(x, c, a, 1, top, 2);
    for (int i = 0; i < n; i++)
        if (top[i]->req & (TC_REQ_NODE_SHM | TC_REQ_INLINE)) {
            (void)tc_nb_ring_make(x);   /* (its failure: the ring's absence, not the call's) */
            return;
        }
}

/* After the race of c's key: its usage watched where a winner was timed
 * and it may race again. */
static void watch_after(tc_ctx *x, const tc_call *c, const tc_learn_slot *sl, int cls)
{
    int coll = c->d->coll;
    tc_nb_usage_raced(coll, cls);
    x->nb_watch[coll] = sl && sl->nb_winner && !(sl->nb_winner->req & TC_REQ_NATIVE) &&
                        sl->nb_reraces < TC_NB_RERACES_MAX;   /* (the MPI library's own calls are not sampled) */
    x->nb_since[coll] = 0;
    x->nb_check_at[coll] = TC_NB_CHECK_FIRST;
}

/* The race on the scratch record of c (every rank may go on), timed as the
 * application's calls ran (nb_usage.h: computation and test calls between
 * a call and its wait, where it had any). */
static void race(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s)
{
    const tc_config *cfg = tc_config_get();
    int calls = tc_scratch_settle(x, c, a, s, cfg->learn_init);
    tc_learn_slot *sl = tc_learn_find(x, c, a);
    const tc_algo *cand[TC_SCRATCH_RACE_MAX];
    tc_race_result r = { .n = 0, .winner = NULL };
    tc_nb_usage u;
    tc_nb_usage_get(c->d->coll, &u);
    int cls = tc_nb_usage_class(&u), computes = 0;
    if (!cls) u.gap_ns = 0, u.tests = 0;   /* this rank waits at once */
    /* agreed: the race's trials start together (a barrier) where any rank computes */
    if (PMPI_Allreduce(&cls, &computes, 1, MPI_INT, MPI_MAX, x->comm) != MPI_SUCCESS) computes = 0;
    int settled = tc_learn_settled(x, c, a);
    if (settled && x->ring_made == 0) make_ring_for(x, c, a);
    int n = settled ? tc_nb_race_candidates(x, c, a, cand, TC_SCRATCH_RACE_MAX) : 0;
    if (n >= 2) tc_scratch_race(x, c, a, s, cand, n, 0, computes ? &u : NULL, &r);
    if (sl) {
        sl->nb_raced = 1;
        sl->nb_winner = r.winner;
    }
    x->nb_memo[c->d->coll].valid = 0;   /* the next nonblocking call chooses again */
    watch_after(x, c, sl, cls);
    tc_scratch_explain(x, c, "nonblocking race", "nonblocking", calls, settled, computes ? &u : NULL, &r);
}

/* A comparison asked for (x->race_check): does any rank's usage of c's
 * collective differ from what its key's race timed (one reduction)?  Then
 * the key races again. */
static int usage_changed(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    int mine = tc_nb_usage_changed(c->d->coll), any = 0;
    if (PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, x->comm) != MPI_SUCCESS || !any) return 0;
    tc_learn_slot *sl = tc_learn_find(x, c, a);
    if (!sl || !sl->nb_raced || sl->nb_reraces >= TC_NB_RERACES_MAX) {   /* (another key of the collective) */
        x->nb_watch[c->d->coll] = 0;
        return 0;
    }
    sl->nb_raced = 0;
    sl->nb_reraces++;
    return 1;
}

void tc_nb_race_run(tc_ctx *x)
{
    tc_call *c = x->race_call;
    int check = x->race_check;
    x->race_want = x->race_check = 0;
    x->race_call = NULL;
    if (!c) return;
    tc_args a;
    tc_call_make_ctx_args(c, x, &a);
    tc_scratch s;
    if ((!check || usage_changed(x, c, &a)) && tc_scratch_begin(x, c, &a, &s)) {
        race(x, c, &a, &s);
        tc_scratch_free(&s);
    }
    free(c);
}

const tc_algo *tc_nb_race_winner(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_learn_slot *sl = tc_learn_find(x, c, a);
    return sl && sl->nb_raced ? sl->nb_winner : NULL;
}

void tc_nb_race_forget(tc_ctx *x)
{
    free(x->race_call);
    x->race_call = NULL;
    x->race_want = x->race_check = 0;
    memset(x->nb_count, 0, sizeof x->nb_count);
    memset(x->nb_since, 0, sizeof x->nb_since);
    memset(x->nb_watch, 0, sizeof x->nb_watch);
    memset(x->nb_looked, 0, sizeof x->nb_looked);
}
