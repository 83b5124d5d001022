/*
 * gatherv "linear": the root receives every rank's block directly: the mirror image of scatterv "linear"
 * (src/algo/scatterv/linear.c; src/algo/rootedv.h), whose header gives the
 * steps in the other direction, the cost and the memory.
 *
 * Steps: scatterv "linear"'s, backwards: every rank sends the root its
 *   block, which the root receives at its place in its receive buffer (its
 *   own block a copy unless in place).
 * Counts: as scatterv "linear": ranks other than the root need only their
 *   own count.
 * Cost: alpha + (N - n_root) beta at the root where its receives overlap,
 *   (p-1) alpha where they do not.
 * Memory: as scatterv "linear".
 * Restrictions: none.
 * Source: as scatterv "linear"; the mirror: Jain, Lau, Kale, "Collectives on
 *   Two-tier Direct Networks" (2012), section 5.1 ("Gather can be
 *   performed using this algorithm in the reverse order").
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"


static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return rv_gatherv_by_mirror(s, a, t, tc_scatterv_linear_generate);
}

/* Every rank but the root sends it its block at once. */
static int pair(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)p, (void)d;
    int root = *(const int *)ctx;
    if (r == root) return -1;
    *blocks = 1;
    return root;
}

/* Cost function: one step, every rank's block to the root (the receives
 * overlap; the ranks of a node share its link). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    if (t->size > 1) tc_cw_step(c, t, pair, &root, 1, n);
    return 0;
}

const tc_algo tc_gatherv_linear = {
    .cost = cost,
    .coll = TOPOCOLL_GATHERV, .name = "linear",
    .desc = "direct: every rank sends the root its block",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
