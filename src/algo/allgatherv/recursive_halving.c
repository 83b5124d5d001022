/*
 * allgatherv "recursive_halving": the allgather recursive
 * halving (src/algo/allgather/recursive_halving.c), for an allgatherv whose
 * counts are all equal.
 *
 * Steps: as the allgather entry.
 * Cost: log p alpha + (p-1) n beta.
 * Memory: p blocks of scratch (bit-reversed slots).
 * Restrictions: equal receive counts: the blocks travel in bit-reversed
 *   scratch slots of equal size (declines otherwise).
 * Source: as the allgather entry (Pappalardo, Rossi, Parisi, Cosenza, Salimi
 *   Beni, "MPI_Allgather Optimization with P2P Implementations").
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_recursive_halving;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_recursive_halving, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_recursive_halving.cost(&tc_allgather_recursive_halving, a, t, n, c);
}

const tc_algo tc_allgatherv_recursive_halving = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "recursive_halving",
    .desc = "recursive halving: log p steps, distance halving (equal counts only)",
    .req = TC_REQ_EQUAL_BLOCKS, .generate = generate, .source = __FILE__,
};
