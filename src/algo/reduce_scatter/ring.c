/*
 * reduce_scatter "ring": the reduce-scatter half of the ring allreduce
 * (Patarasuk, Yuan, "Bandwidth Optimal All-reduce Algorithms for Clusters
 * of Workstations" (2009)) with the user's blocks as the ring's blocks.
 *
 * Steps: p-1 steps; at step i rank r sends the partial sum of block
 *   (r-i-1) mod p to its right neighbour (step 0: its own part of that
 *   block, straight from the input) and receives the partial of block
 *   (r-i-2) mod p from its left one, which it combines with its own part in
 *   a round of its own.  After p-1 steps block r's sum is at r; it is
 *   copied to the receive buffer.  Every message goes to a neighbour.
 * Cost: (p-1) alpha + (n - n_r) beta + (n - n_r) gamma, each step only as
 *   fast as the largest block it moves (uneven counts slow it).
 * Memory: two slots of the largest block.
 * Restrictions: commutative operations (a block's chain starts at the rank
 *   after its owner and wraps around past p-1); others are declined.
 * Generator: tc_rs_ring (src/blocks/rs_blocks.h).
 * Source: Patarasuk, Yuan 2009; the ring of Thakur, Rabenseifner, Gropp
 *   2005.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "blocks/rs_blocks.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_rs_blocks B = tc_rs_blocks_of(a);
    tc_rs_ring(s, a, &B);
    return 0;
}

/* Cost function (n: one block): p-1 steps to the right neighbour of one
 * block, each reduced. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    for (int i = 1; i < t->size; i++) {
        tc_cw_step(c, t, tc_cw_shift, NULL, 1, n);
        c->reduced += n;
    }
    return 0;
}

const tc_algo tc_reduce_scatter_ring = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE_SCATTER, .name = "ring",
    .desc = "ring: p-1 steps to the right neighbour, partial sums travel around the ring",
    .req = TC_REQ_COMMUTATIVE,
    .generate = generate, .source = __FILE__,
};
