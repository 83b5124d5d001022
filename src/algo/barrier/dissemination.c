/*
 * barrier "dissemination": the dissemination barrier.
 *
 * Steps: in round k = 0 .. ceil(log2 p) - 1 (distance d = 2^k) rank r sends
 *   a zero-byte message to (r + d) mod p and receives one from (r - d) mod p.
 *   After round k a rank has heard, directly or through others, from the
 *   2^(k+1) - 1 ranks before it (mod p), so after the last round from all.
 * Cost: ceil(log2 p) alpha (no bytes); every rank sends one message a round.
 * Memory: none.
 * Restrictions: none (any p).
 * Source: Hensgen, Finkel, Manber, "Two algorithms for barrier
 *   synchronization" (1988).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    for (int d = 1; d < p; d <<= 1) {
        tc_sched_send_sync(s, tc_wrap(r + d, p));
        tc_sched_recv_sync(s, tc_wrap(r - d, p));
        tc_sched_round(s);
    }
    return 0;
}

/* Cost function: ceil(log2 p) zero-byte steps to rank + 2^k. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    (void)n;
    for (int d = 1; d < t->size; d <<= 1) tc_cw_step(c, t, tc_cw_shift, NULL, d, 0);
    return 0;
}

const tc_algo tc_barrier_dissemination = {
    .cost = cost,
    .coll = TOPOCOLL_BARRIER, .name = "dissemination",
    .desc = "dissemination (Hensgen, Finkel, Manber): ceil(log2 p) rounds, a zero-byte message to r+2^k",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
