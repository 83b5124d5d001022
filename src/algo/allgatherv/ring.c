/*
 * allgatherv "ring": the allgather ring (src/algo/allgather/ring.c)
 * on blocks of unequal size.
 *
 * Steps: step i forwards block r-i+1 to r+1 and receives block r-i from r-1.
 * Cost: (p-1) alpha + (N - n_r) beta; each step lasts as long as the largest
 *   block in flight, so one very large block delays every step it is in.
 * Memory: none beyond the receive buffer.
 * Restrictions: none.
 * Source: Thakur, Rabenseifner, Gropp 2005; algorithm 4 of Pappalardo,
 *   Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather Optimization with
 *   P2P Implementations".
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_ring;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_ring, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_ring.cost(&tc_allgather_ring, a, t, n, c);
}

const tc_algo tc_allgatherv_ring = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "ring",
    .desc = "ring: p-1 nearest-neighbour steps of one block each",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
