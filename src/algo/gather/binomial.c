/*
 * gather "binomial": MPICH's binomial tree (MPIR_Gather_intra_binomial),
 * a baseline of Table 1 of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks" (2012): the mirror image of scatter "binomial" (mirror.h).
 *
 * Steps: with relative ranks v = (rank - root) mod p, v receives the blocks
 *   of each child's subtree into scratch next to its own block and sends its
 *   whole subtree [v, v + size) to its parent (v with its lowest set bit
 *   cleared); a leaf sends its send buffer.  The root receives straight into
 *   its receive buffer (a subtree whose ranks wrap past p-1: two messages).
 * Cost: ceil(log2 p) alpha + (p-1)/p n beta (n = p blocks) at the root.
 * Memory: an inner rank keeps its subtree's blocks in scratch (at most p/2).
 * Restrictions: none.
 * Source: Thakur, Rabenseifner, Gropp 2005; MPICH gather_intra_binomial.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "blocks/mirror.h"

extern const tc_algo tc_scatter_binomial;   /* src/algo/scatter/binomial.c */

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_gather_by_mirror(s, a, t, tc_scatter_binomial.generate);
}

/* Cost function: up the tree, a rank's subtree of blocks of n. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    for (int d = 1; d < t->size; d <<= 1) tc_cw_step(c, t, tc_cw_subtree_up, &root, d, n);
    return 0;
}

const tc_algo tc_gather_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_GATHER, .name = "binomial",
    .desc = "binomial tree (MPICH): log p steps, each rank forwards its subtree's blocks",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
