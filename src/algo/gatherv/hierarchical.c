/*
 * gatherv "hierarchical": through node leaders: the mirror image of scatterv "hierarchical"
 * (src/algo/scatterv/hierarchical.c; src/algo/rootedv.h), whose header gives the
 * steps in the other direction, the cost and the memory.
 *
 * Steps: scatterv "hierarchical"'s, backwards: every message goes the other way,
 *   rounds in reverse order: every node member sends its leader its block,
 *   every other node's leader sends the root its node's blocks in one
 *   message, which lands in the root's receive buffer where the node's
 *   ranks are consecutive, else in scratch, copied to the places last.
 * Counts: as scatterv "hierarchical": the root's vector reaches every rank first
 *   (TC_REQ_ROOT_COUNTS: one allreduce of p + 2 counts).
 * Cost: after the counts' spreading, one node message of a block into
 *   each leader, then one network message of q blocks into the root per
 *   other node (m nodes of q ranks: m-1 messages into the root's link
 *   instead of p-q).
 * Memory: as scatterv "hierarchical".
 * Restrictions: none.
 * Source: as scatterv "hierarchical"; the mirror: Jain, Lau, Kale, "Collectives on
 *   Two-tier Direct Networks" (2012), section 5.1 ("Gather can be
 *   performed using this algorithm in the reverse order").
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"


static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return rv_gatherv_by_mirror(s, a, t, tc_scatterv_hierarchical_generate);
}

typedef struct hctx { const tc_topo *t; int root; } hctx;

static int leader_of(const tc_topo *t, int node, int root)
{
    return t->node_of[root] == node ? root : tc_topo_node_members(t, node)[0];
}

/* Step 1: every rank but the leaders sends its leader its block. */
static int up_node(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)p, (void)d;
    const hctx *h = ctx;
    int lead = leader_of(h->t, h->t->node_of[r], h->root);
    if (r == lead) return -1;
    *blocks = 1;
    return lead;
}

/* Step 2: every other node's leader sends the root its node's blocks. */
static int up_net(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)p, (void)d;
    const hctx *h = ctx;
    int node = h->t->node_of[r];
    if (node == h->t->node_of[h->root] || r != leader_of(h->t, node, h->root)) return -1;
    *blocks = tc_topo_node_size(h->t, node);
    return h->root;
}

/* Cost function: the counts' spreading, then the two steps (the receives
 * of each step overlap; the ranks of a node share its link). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    hctx h = { t, a->root >= 0 && a->root < t->size ? a->root : 0 };
    rv_counts_cost(c, t);
    if (t->size > 1) tc_cw_step(c, t, up_node, &h, 1, n);
    if (t->nnodes > 1) tc_cw_step(c, t, up_net, &h, 1, n);
    return 0;
}

const tc_algo tc_gatherv_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_GATHERV, .name = "hierarchical",
    .desc = "through node leaders: members to their leader, one message per node to the root",
    .req = TC_REQ_ROOT_COUNTS, .generate = generate, .source = __FILE__,
};
