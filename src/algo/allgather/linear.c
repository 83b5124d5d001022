/*
 * allgather "linear": direct exchange with every rank (algorithm 1 of
 * Pappalardo, Rossi, Parisi, Cosenza, Salimi Beni, see Source).
 *
 * Steps: one round: receive block j from every rank j != r and send the own
 *   block to every rank j != r (rank r talks to r+1, r+2, ... first so that
 *   not every rank hits rank 0 at once), copy the own block into place.
 * Cost: (p-1) alpha + (p-1) n beta, all messages in flight at once (p-1
 *   sends and p-1 receives posted together: high injection, no store and
 *   forward).  n = bytes per rank.
 * Memory: none beyond the receive buffer.
 * Restrictions: none.
 * Source: Pappalardo et al., "MPI_Allgather Optimization with P2P
 *   Implementations", algorithm 1 (there with blocking sends; here posted
 *   nonblocking, so it cannot deadlock at any size).
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    for (int i = 1; i < p; i++) {
        int from = tc_wrap(r - i, p);
        tc_sched_recv(s, from, ag_rbuf(a, from, 1));
    }
    for (int i = 1; i < p; i++)
        tc_sched_send(s, tc_wrap(r + i, p), ag_own(a));
    tc_sched_copy(s, ag_own(a), ag_rbuf(a, r, 1));
    return 0;
}

/* Shift form: one step in which every rank sends its block to r+1 .. r+p-1
 * (told in chunks of 1024 sends). */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    enum { CHUNK = 1024 };
    int p = a->size, rc = 0, shift[CHUNK];
    int64_t cnt[CHUNK];
    if (p < 2 || a->scount <= 0) return TC_SHIFT_NONE;
    for (int i = 0; i < CHUNK; i++) cnt[i] = a->scount;
    for (int first = 1; first < p && rc == 0; first += CHUNK) {
        int n = p - first < CHUNK ? p - first : CHUNK;
        for (int i = 0; i < n; i++) shift[i] = first + i;
        tc_shift_round rd = { n, shift, cnt, 0, 0, 1, first + n < p };
        rc = sink(ctx, &rd);
    }
    return rc;
}

/* Cost function: one block to every other rank, priced as p-1 steps (no
 * overlap assumed). */
static int tc_allgather_linear_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    if (t->size > 2048) return -1;   /* O(p^2) to price */
    for (int d = 1; d < t->size; d++) tc_cw_step(c, t, tc_cw_shift, NULL, d, n);
    return 0;
}

const tc_algo tc_allgather_linear = {
    .cost = tc_allgather_linear_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "linear",
    .desc = "direct exchange: every rank sends its block to every other rank",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__, .shift = shift_form,
};
