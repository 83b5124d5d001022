/*
 * allreduce "reduce_scatter_allgather": Rabenseifner's algorithm.
 *
 * Steps: fold a non-power-of-two p onto q = 2^floor(log2 p) ranks (common.h);
 *   the n elements are q blocks (the first n mod q one element longer).
 *   1. Reduce-scatter by recursive halving with the distance doubling
 *      (mask 1, 2, ..., q/2): new rank v exchanges half of its current block
 *      range with v XOR mask (the lower rank keeps the lower half) and
 *      combines "lower op higher" on the half it keeps.  The partners of
 *      mask cover adjacent aligned rank ranges, so every block is reduced in
 *      rank order (non-commutative operations too), once, by one rank.
 *   2. Allgather by recursive doubling of the blocks (mask q/2 .. 1) in the
 *      receive buffer; then the fold is undone.
 *   Every result element is computed once and copied: all ranks hold
 *   bitwise-identical results.
 * Cost: 2 log2 q alpha + 2 (q-1)/q n beta + (q-1)/q n gamma, plus
 *   2 (alpha + n beta) + n gamma when p is not a power of two.
 * Memory: n scratch.
 * Restrictions: none.
 * Generator: tc_allreduce_rsa_over (src/blocks/allreduce_members.h).
 * Source: Rabenseifner, "Optimization of Collective Reduction Operations"
 *   (2004); Thakur, Rabenseifner, Gropp 2005; MPICH
 *   allreduce_intra_reduce_scatter_allgather.
 */
#include "algo/cost_walk.h"
#include "algo/allreduce/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_members all = tc_members_all(a->size, a->rank);
    tc_ar_regions x = ar_flat_regions(a, a->scount);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->size > 1 ? a->scount : 0);
    tc_allreduce_rsa_over(s, &all, &x);
    return 0;
}

/* Cost function: the fold in (n, reduced), recursive halving (mask d:
 * n/2d sent and reduced), recursive doubling back (n/2d), the fold out (n). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size, q = tc_cw_fold_halving(c, t, n);
    for (int d = q / 2; d >= 1; d >>= 1) tc_cw_step(c, t, tc_cw_fold_xor, NULL, d, n / (2 * d));
    if (q < p) tc_cw_step(c, t, tc_cw_fold_out, NULL, 0, n);
    return 0;
}

const tc_algo tc_allreduce_reduce_scatter_allgather = {
    .cost = cost,
    .coll = TOPOCOLL_ALLREDUCE, .name = "reduce_scatter_allgather",
    .desc = "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather "
            "(large vectors), any operation",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
