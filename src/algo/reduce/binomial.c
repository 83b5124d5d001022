/*
 * reduce "binomial": MPICH's binomial tree (MPIR_Reduce_intra_binomial).
 *
 * Steps: with relative ranks v = (rank - lroot) mod p, v receives the
 *   partial results of its children v + 1, v + 2, v + 4, ... (smallest
 *   first) and folds each into its accumulator, then sends the accumulator
 *   to its parent (v with its lowest set bit cleared).  The accumulator
 *   always covers the relative ranks [v, v + 2^k) and the child's partial
 *   the next ones, so acc op child keeps rank order: for a non-commutative
 *   operation lroot = 0 and rank 0 finally sends the result to the root
 *   (MPICH's way); a commutative one is reduced straight to the root.
 *   A child's message arrives while the previous one is being reduced (three
 *   scratch buffers rotate).
 * Cost: ceil(log2 p) (alpha + n beta + n gamma) (+ alpha + n beta when the
 *   operation is not commutative and root != 0).
 * Memory: min(children, 3) n scratch.
 * Restrictions: none (non-commutative operations too).
 * Source: Thakur, Rabenseifner, Gropp 2005; MPICH reduce_intra_binomial.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, root = a->root;
    int lroot = a->commutative ? root : 0, v = tc_mod(r - lroot, p);
    int64_t n = a->scount;
    s->tmp_like = TC_BUF_SEND;
    int kids[32], nk = tc_binom_children(v, p, kids, 32);   /* largest first */
    tc_sched_need_tmp(s, (nk < 3 ? nk : 3) * n);
    tc_region acc = tc_reg(TC_BUF_SEND, 0, n);
    for (int k = 0; k <= nk; k++) {
        if (k < nk)
            tc_sched_recv(s, (kids[nk - 1 - k] + lroot) % p, tc_reg(TC_BUF_TMP, (int64_t)(k % 3) * n, n));
        if (k > 0) {
            tc_region in = tc_reg(TC_BUF_TMP, (int64_t)((k - 1) % 3) * n, n);
            tc_sched_reduce(s, acc, in);
            acc = in;
        }
        tc_sched_round(s);
    }
    if (v) tc_sched_send(s, (tc_binom_parent(v) + lroot) % p, acc);
    else if (r == root) {
        if (acc.buf != TC_BUF_SEND || !a->in_place) tc_sched_copy(s, acc, tc_reg(TC_BUF_RECV, 0, n));
    } else tc_sched_send(s, root, acc);
    tc_sched_round(s);
    if (r == root && v) tc_sched_recv(s, lroot, tc_reg(TC_BUF_RECV, 0, n));
    tc_sched_round(s);
    return 0;
}

/* Cost function: up the tree (commutative: from the root), n per level,
 * reduced at every level. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->commutative && a->root >= 0 && a->root < t->size ? a->root : 0;
    for (int d = 1; d < t->size; d <<= 1) {
        tc_cw_step(c, t, tc_cw_up, &root, d, n);
        c->reduced += n;
    }
    if (root != (a->root >= 0 && a->root < t->size ? a->root : 0)) tc_cw_path(c, tc_cw_level(t, 0, a->root), 1, n);
    return 0;
}

const tc_algo tc_reduce_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE, .name = "binomial",
    .desc = "binomial tree (MPICH): log p steps of the whole buffer, any operation",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
