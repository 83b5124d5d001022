/*
 * allgatherv "gather_bcast": the allgather gather-broadcast
 * (src/algo/allgather/gather_bcast.c) on blocks of unequal size: binomial
 * subtrees are contiguous rank ranges, so each message is one contiguous run
 * of blocks of the packed layout.
 *
 * Steps: binomial gather of the blocks to rank 0, binomial bcast of all.
 * Cost: 2 log p alpha + about (N + N log p) beta at the root's children.
 * Memory: none beyond the receive buffer.
 * Restrictions: none.
 * Source: as the allgather entry (Pappalardo, Rossi, Parisi, Cosenza, Salimi
 *   Beni, "MPI_Allgather Optimization with P2P Implementations").
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_gather_bcast;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_gather_bcast, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_gather_bcast.cost(&tc_allgather_gather_bcast, a, t, n, c);
}

const tc_algo tc_allgatherv_gather_bcast = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "gather_bcast",
    .desc = "binomial gather to rank 0, then binomial broadcast of the result",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
