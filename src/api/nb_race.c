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
 *      (tc_scratch_race): the learner's two fastest entries with one, the
 *      cost model's fastest with one (message rounds only: the learner
 *      times the blocking call's candidates, which may all be
 *      hierarchical), and the MPI library's own nonblocking collective;
 *      the winner is kept with the key's learner and the nonblocking
 *      calls' memo of the collective dropped;
 *   3. the key's nonblocking calls take the winner first
 *      (tc_nb_race_winner); the MPI library's own where it won.
 * Cost: once per key, inside one blocking collective: the settling where
 * the key had none (about 90 to 150 blocking calls), then 38 nonblocking
 * calls and waits for each of up to four candidates; nothing for a key called fewer than
 * TOPOCOLL_LEARN_PATIENCE times, or on a communicator without blocking
 * collectives.  TOPOCOLL_LEARN_INIT=0 turns it off with the persistent
 * inits' learning.
 */
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "api/learn_call.h"
#include "api/learn_scratch.h"
#include "api/nb_areas.h"
#include "api/nb_race.h"

/* Are the call's significant datatypes predefined (handles that outlive
 * the call)? */
static int named_types(const tc_call *c)
{
    for (int b = 0; b < 2; b++)
        if (c->use[b] && !tc_call_type_named(tc_call_type(c, b))) return 0;
    return 1;
}

void tc_nb_race_ask(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_config *cfg = tc_config_get();
    int coll = c->d->coll;
    const tc_learn_slot *sl = tc_learn_find(x, c, a);
    if (cfg->learn_init <= 0 || (sl && sl->nb_raced) || !tc_scratch_eligible(c) || !named_types(c)) {
        x->nb_looked[coll] = 1;   /* nothing to race for this key: the memo's calls stop counting */
        return;
    }
    x->nb_looked[coll] = 0;
    if (++x->nb_count[coll] < tc_nb_race_patience(cfg) || x->race_want) return;
    x->nb_count[coll] = 0;
    tc_call *kept = malloc(sizeof *kept);
    if (!kept) return;
    *kept = *c;
    kept->v64 = NULL;   /* (per-peer collectives are not eligible) */
    x->race_call = kept;
    x->race_want = 1;
    x->nb_looked[coll] = 1;   /* the race drops the memo: the next call looks again */
    tc_memo_drop_blocking(x);
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

/* The race on the scratch record of c (every rank may go on). */
static void race(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s)
{
    const tc_config *cfg = tc_config_get();
    int calls = tc_scratch_settle(x, c, a, s, cfg->learn_init);
    tc_learn_slot *sl = tc_learn_find(x, c, a);
    const tc_algo *cand[TC_SCRATCH_RACE_MAX];
    tc_race_result r = { .n = 0, .winner = NULL };
    int settled = tc_learn_settled(x, c, a);
    if (settled && x->ring_made == 0) make_ring_for(x, c, a);
    int n = settled ? tc_nb_race_candidates(x, c, a, cand, TC_SCRATCH_RACE_MAX) : 0;
    if (n >= 2) tc_scratch_race(x, c, a, s, cand, n, 0, &r);
    if (sl) {
        sl->nb_raced = 1;
        sl->nb_winner = r.winner;
    }
    x->nb_memo[c->d->coll].valid = 0;   /* the next nonblocking call chooses again */
    tc_scratch_explain(x, c, "nonblocking race", "nonblocking", calls, settled, &r);
}

void tc_nb_race_run(tc_ctx *x)
{
    tc_call *c = x->race_call;
    x->race_want = 0;
    x->race_call = NULL;
    if (!c) return;
    tc_args a;
    tc_call_make_ctx_args(c, x, &a);
    tc_scratch s;
    if (tc_scratch_begin(x, c, &a, &s)) {
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
    x->race_want = 0;
    memset(x->nb_count, 0, sizeof x->nb_count);
    memset(x->nb_looked, 0, sizeof x->nb_looked);
}
