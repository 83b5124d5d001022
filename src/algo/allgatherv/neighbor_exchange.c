/*
 * allgatherv "neighbor_exchange": the allgather neighbour exchange
 * (src/algo/allgather/neighbor_exchange.c) on blocks of unequal size: the
 *   two blocks of a step are an aligned pair (2k, 2k+1), contiguous in the
 *   packed layout.
 *
 * Steps: p/2 steps with alternating neighbours.
 * Cost: p/2 alpha + (N - n_r) beta.
 * Memory: none beyond the receive buffer.
 * Restrictions: even p.
 * Source: Chen et al., "Performance evaluation of Allgather algorithms on
 *   terascale Linux cluster with fast Ethernet" (2005), as the allgather entry.
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_neighbor_exchange;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_neighbor_exchange, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_neighbor_exchange.cost(&tc_allgather_neighbor_exchange, a, t, n, c);
}

const tc_algo tc_allgatherv_neighbor_exchange = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "neighbor_exchange",
    .desc = "neighbour exchange: p/2 steps of two blocks with alternating neighbours",
    .req = TC_REQ_EVEN_P, .generate = generate, .source = __FILE__,
};
