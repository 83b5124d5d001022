/*
 * scatterv "binomial": the binomial scatter tree of scatter "binomial" on
 * blocks of unequal size.
 *
 * Steps: with relative ranks v = (rank - root) mod p, the subtree of v is
 *   [v, v + size) (pattern.h).  The root sends every child c = v + 2^k,
 *   largest first, the blocks of c's subtree straight from its send buffer
 *   (a subtree whose ranks wrap past p-1: two messages).  An inner rank
 *   receives its subtree's blocks into scratch, packed in relative rank
 *   order, forwards each child its part and keeps its own; a leaf receives
 *   its block into its receive buffer.  Subtrees of zero-size blocks send
 *   nothing.
 * Counts: every rank must know its subtree's counts: the root's vector
 *   reaches every rank first (TC_REQ_ROOT_COUNTS: one allreduce of p + 2 counts,
 *   ceil(log2 p) alpha + 8 p beta, before the data).
 * Cost: ceil(log2 p) alpha + about (N - n_root) beta at the root (N: the
 *   sum of the counts; equal blocks: (p-1)/p N).
 * Memory: an inner rank keeps its subtree's blocks in scratch.
 * Restrictions: none.
 * Source: the binomial scatter of Thakur, Rabenseifner, Gropp,
 *   "Optimization of Collective Communication Operations in MPICH" (2005),
 *   with counts per block.
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"
#include "pattern/pattern.h"

extern const tc_algo tc_scatter_binomial;   /* src/algo/scatter/binomial.c */

/* Elements of the relative ranks u .. u+k-1 (in rank order they may wrap
 * past p-1: two runs); *head the first run's. */
static int64_t rel_span(const tc_args *a, int u, int k, int64_t *head)
{
    int p = a->size, first = (a->root + u) % p, h = k < p - first ? k : p - first;
    int64_t x = rv_span(a, first, h);
    if (head) *head = x;
    return x + rv_span(a, 0, k - h);
}

static void root_sends(tc_sched *s, const tc_args *a, const int *kids, int nk)
{
    int p = a->size;
    for (int i = 0; i < nk; i++) {
        int c = kids[i], k = tc_binom_subtree(c, p), first = (a->root + c) % p;
        int64_t head, all = rel_span(a, c, k, &head);
        int peer = (c + a->root) % p;
        tc_sched_send(s, peer, tc_reg(TC_BUF_SEND, rv_off(a, first), head));
        tc_sched_send(s, peer, tc_reg(TC_BUF_SEND, 0, all - head));
    }
}

static void inner(tc_sched *s, const tc_args *a, int v, int parent, const int *kids, int nk)
{
    int p = a->size, k = tc_binom_subtree(v, p);
    int64_t head, all = rel_span(a, v, k, &head);
    tc_sched_need_tmp(s, all);
    if (parent != 0) head = all;   /* from an inner rank: one message */
    int from = (parent + a->root) % p;
    tc_sched_recv(s, from, tc_reg(TC_BUF_TMP, 0, head));
    tc_sched_recv(s, from, tc_reg(TC_BUF_TMP, head, all - head));
    tc_sched_round(s);
    for (int i = 0; i < nk; i++) {
        int c = kids[i];
        int64_t at = rel_span(a, v, c - v, NULL), n = rel_span(a, c, tc_binom_subtree(c, p), NULL);
        tc_sched_send(s, (c + a->root) % p, tc_reg(TC_BUF_TMP, at, n));
    }
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->rcount), rv_own(a));
    tc_sched_round(s);
}

int tc_scatterv_binomial_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, root = a->root, v = tc_mod(a->rank - root, p);
    int kids[32];
    int nk = tc_binom_children(v, p, kids, 32);
    s->tmp_like = v == 0 ? TC_BUF_SEND : TC_BUF_RECV;
    if (v == 0) {
        rv_root_keep(s, a);
        root_sends(s, a, kids, nk);
        tc_sched_round(s);
        return 0;
    }
    int parent = tc_binom_parent(v);
    if (tc_binom_subtree(v, p) == 1) {
        tc_sched_recv(s, (parent + root) % p, rv_own(a));
        tc_sched_round(s);
        return 0;
    }
    inner(s, a, v, parent, kids, nk);
    return 0;
}

/* Cost function: the counts' spreading, then scatter "binomial"'s, n the
 * mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    rv_counts_cost(c, t);
    return tc_scatter_binomial.cost(&tc_scatter_binomial, a, t, n, c);
}

const tc_algo tc_scatterv_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_SCATTERV, .name = "binomial",
    .desc = "binomial tree: log p steps, each rank forwards its children's subtrees",
    .req = TC_REQ_ROOT_COUNTS, .generate = tc_scatterv_binomial_generate, .source = __FILE__,
};
