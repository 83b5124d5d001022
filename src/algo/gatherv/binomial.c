/*
 * gatherv "binomial": the binomial gather tree on blocks of unequal size: the mirror image of scatterv "binomial"
 * (src/algo/scatterv/binomial.c; src/algo/rootedv.h), whose header gives the
 * steps in the other direction, the cost and the memory.
 *
 * Steps: scatterv "binomial"'s, backwards: every message goes the other way,
 *   rounds in reverse order: an inner rank receives its children's
 *   subtrees into scratch next to its own block and sends its whole subtree
 *   up, packed in relative rank order; the root receives each child's
 *   subtree straight into its receive buffer (two messages where the
 *   subtree's ranks wrap past p-1).
 * Counts: as scatterv "binomial": the root's vector reaches every rank first
 *   (TC_REQ_ROOT_COUNTS: one allreduce of p + 2 counts).
 * Cost: as gather "binomial" (ceil(log2 p) alpha + about (N - n_root)
 *   beta at the root), after the counts' spreading.
 * Memory: as scatterv "binomial".
 * Restrictions: none.
 * Source: as scatterv "binomial"; the mirror: Jain, Lau, Kale, "Collectives on
 *   Two-tier Direct Networks" (2012), section 5.1 ("Gather can be
 *   performed using this algorithm in the reverse order").
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"

extern const tc_algo tc_gather_binomial;   /* src/algo/gather/binomial.c */

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return rv_gatherv_by_mirror(s, a, t, tc_scatterv_binomial_generate);
}

/* Cost function: the counts' spreading, then gather "binomial"'s, n the
 * mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    rv_counts_cost(c, t);
    return tc_gather_binomial.cost(&tc_gather_binomial, a, t, n, c);
}

const tc_algo tc_gatherv_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_GATHERV, .name = "binomial",
    .desc = "binomial tree: log p steps, each rank forwards its subtree's blocks",
    .req = TC_REQ_ROOT_COUNTS, .generate = generate, .source = __FILE__,
};
