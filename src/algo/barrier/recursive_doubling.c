/*
 * barrier "recursive_doubling": pairwise exchanges of zero-byte messages.
 *
 * Steps: fold a non-power-of-two p onto q = 2^floor(log2 p) ranks as the
 *   reduction entries do (src/algo/cost_walk.h): among the ranks below
 *   2 (p - q) an odd rank sends to the even one below and waits for its
 *   release; the q survivors (new rank v) exchange with v XOR 2^k for
 *   k = 0 .. log2 q - 1; then each even rank of the fold releases its odd
 *   partner.  After the exchanges every survivor has heard from every
 *   survivor, each of which had heard from its folded partner.
 * Cost: log2 q alpha, plus 2 alpha when p is not a power of two (no bytes).
 * Memory: none.
 * Restrictions: none (any p).
 * Source: Hensgen, Finkel, Manber, "Two algorithms for barrier
 *   synchronization" (1988) (the butterfly pattern); the fold as in Thakur,
 *   Rabenseifner, Gropp, "Optimization of Collective Communication
 *   Operations in MPICH" (2005).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, q = tc_cw_pow2_floor(p), rem = p - q;
    int v = tc_cw_fold_new(p, r);
    if (v < 0) {   /* folded out: enter through r - 1, leave when it releases */
        tc_sched_send_sync(s, r - 1);
        tc_sched_recv_sync(s, r - 1);
        tc_sched_round(s);
        return 0;
    }
    if (r < 2 * rem) {
        tc_sched_recv_sync(s, r + 1);
        tc_sched_round(s);
    }
    for (int d = 1; d < q; d <<= 1) {
        int peer = tc_cw_fold_old(p, v ^ d);
        tc_sched_send_sync(s, peer);
        tc_sched_recv_sync(s, peer);
        tc_sched_round(s);
    }
    if (r < 2 * rem) {
        tc_sched_send_sync(s, r + 1);
        tc_sched_round(s);
    }
    return 0;
}

/* Cost function: the fold in, log2 q exchanges with new rank XOR d, the
 * fold out, all zero-byte. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    (void)n;
    int p = t->size, q = tc_cw_pow2_floor(p);
    if (q < p) tc_cw_step(c, t, tc_cw_fold_in, NULL, 0, 0);
    for (int d = 1; d < q; d <<= 1) tc_cw_step(c, t, tc_cw_fold_xor, NULL, d, 0);
    if (q < p) tc_cw_step(c, t, tc_cw_fold_out, NULL, 0, 0);
    return 0;
}

const tc_algo tc_barrier_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_BARRIER, .name = "recursive_doubling",
    .desc = "recursive doubling: zero-byte exchanges with rank XOR 2^k, non-power-of-two p folded",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
