/*
 * reduce_scatter "recursive_halving": recursive halving for any p and any
 * counts, in rank order (non-commutative operations too).
 *
 * Steps: with q the largest power of two <= p and rem = p - q, each odd
 *   rank below 2 rem first sends its whole vector to the even rank below,
 *   which combines (even op odd) and stands for both (their two blocks
 *   make one super-block); the other ranks stand for themselves.  The q
 *   survivors copy their vector into scratch with the super-blocks in
 *   bit-reversed order of their new rank.  Then for mask = 1, 2, .., q/2
 *   new rank v exchanges half of the super-blocks it holds with v XOR mask:
 *   in bit-reversed order each half is one contiguous range, split at a
 *   super-block boundary (blocks stay whole, however uneven), and v keeps
 *   the half that holds its own super-block.  The partners of mask hold the
 *   sums of adjacent aligned rank ranges, combined "lower op higher", so
 *   every block is reduced in rank order.  Finally each survivor copies its
 *   block out and sends the odd rank it stands for that rank's block.
 * Cost: log2 q + 2 [p not a power of two] messages; n beta for the fold,
 *   then n/2 + n/4 + .. on the butterfly (n the vector, balanced blocks);
 *   as much reduced.
 * Memory: twice the vector of scratch at the survivors, none at the
 *   ranks that fold in.
 * Restrictions: none.
 * Generator: tc_rs_halving (src/blocks/rs_blocks.h).
 * Source: Thakur, Rabenseifner, Gropp, "Optimization of Collective
 *   Communication Operations in MPICH" (2005), section 4.3 (recursive
 *   halving, the fold of Rabenseifner's reduction for non-powers of two);
 *   Rabenseifner, "Optimization of Collective Reduction Operations" (2004).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "blocks/rs_blocks.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_rs_blocks B = tc_rs_blocks_of(a);
    return tc_rs_halving(s, a, &B);
}

/* Cost function (n: one block): the fold in (the vector, reduced),
 * recursive halving among the survivors (mask d: the vector / 2d sent and
 * reduced), the fold out (one block). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size, q = tc_cw_fold_halving(c, t, n * p);
    if (q < p) tc_cw_step(c, t, tc_cw_fold_out, NULL, 0, n);
    return 0;
}

const tc_algo tc_reduce_scatter_recursive_halving = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE_SCATTER, .name = "recursive_halving",
    .desc = "recursive halving on whole blocks after a fold of the excess ranks, rank order kept",
    .req = TC_REQ_NONE,
    .generate = generate, .source = __FILE__,
};
