/*
 * allreduce "reduce_bcast": binomial reduce to rank 0, then binomial
 * broadcast from rank 0.
 *
 * Steps: 1. rank v receives the partials of its children v+1, v+2, v+4, ...
 *   (smallest first) and combines "accumulator op child": the accumulator
 *   covers ranks [v, v+2^k), the child the next ones, so the reduction is
 *   in rank order; then it sends the accumulator to its parent (v with its
 *   lowest set bit cleared).  A child's message arrives while the previous
 *   one is combined (three scratch slots rotate).  2. Rank 0 copies the
 *   result to its receive buffer and broadcasts it down the same tree
 *   (largest subtree first).  The result is computed once, at rank 0: all
 *   ranks hold bitwise-identical results.
 * Cost: 2 ceil(log2 p) (alpha + n beta) + ceil(log2 p) n gamma.
 * Memory: min(children, 3) n scratch.
 * Restrictions: none (non-commutative operations in rank order).
 * Source: Thakur, Rabenseifner, Gropp 2005 (MPICH's reduce + bcast
 *   allreduce for user-defined operations).
 */
#include "algo/cost_walk.h"
#include "algo/allreduce/common.h"

/* Step 1; returns the region holding the partial. */
static tc_region reduce_up(tc_sched *s, const tc_args *a, const int *kids, int nk)
{
    int64_t n = a->scount;
    tc_region acc = ar_all(ar_input(a), n);
    for (int k = 0; k <= nk; k++) {
        if (k < nk) tc_sched_recv(s, kids[nk - 1 - k], tc_reg(TC_BUF_TMP, (int64_t)(k % 3) * n, n));
        if (k > 0) {
            tc_region in = tc_reg(TC_BUF_TMP, (int64_t)((k - 1) % 3) * n, n);
            tc_sched_reduce(s, acc, in);
            acc = in;
        }
        tc_sched_round(s);
    }
    return acc;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    int64_t n = a->scount;
    tc_region all = ar_all(TC_BUF_RECV, n);
    int kids[32], nk = tc_binom_children(r, p, kids, 32);   /* largest first */
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, (nk < 3 ? nk : 3) * n);
    tc_region acc = reduce_up(s, a, kids, nk);
    if (r) {
        int parent = tc_binom_parent(r);
        tc_sched_send(s, parent, acc);
        if (acc.buf == TC_BUF_RECV) tc_sched_round(s);   /* in place leaf: send, then receive */
        tc_sched_recv(s, parent, all);
        tc_sched_round(s);
    } else if (acc.buf != TC_BUF_RECV) {
        tc_sched_copy(s, acc, all);
        tc_sched_round(s);
    }
    for (int i = 0; i < nk; i++) tc_sched_send(s, kids[i], all);
    tc_sched_round(s);
    return 0;
}

/* Cost function: a binomial reduce to rank 0 (n per level, reduced), then
 * a binomial broadcast of n. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    for (int d = 1; d < t->size; d <<= 1) {
        tc_cw_step(c, t, tc_cw_up, NULL, d, n);
        c->reduced += n;
    }
    for (int d = 1; d < t->size; d <<= 1) tc_cw_step(c, t, tc_cw_tree, NULL, d, n);
    return 0;
}

const tc_algo tc_allreduce_reduce_bcast = {
    .cost = cost,
    .coll = TOPOCOLL_ALLREDUCE, .name = "reduce_bcast",
    .desc = "binomial reduce to rank 0 in rank order, then binomial broadcast (any operation)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
