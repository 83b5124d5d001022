/*
 * allgatherv "linear": the allgather generator of the same name
 * (src/algo/allgather/linear.c) on blocks of unequal size.
 *
 * Steps: every rank posts p-1 receives, one per source block at its
 *   displacement, and sends its own block to the p-1 others.
 * Cost: alpha + (p-1) alpha + (N - n_r) beta at rank r (N: the sum of the
 *   counts, n_r its own count); zero-size blocks send nothing.
 * Memory: none beyond the receive buffer.
 * Restrictions: none.
 * Source: the direct algorithm of Pappalardo, Rossi, Parisi, Cosenza, Salimi
 *   Beni, "MPI_Allgather Optimization with P2P Implementations".
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_linear;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_linear, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_linear.cost(&tc_allgather_linear, a, t, n, c);
}

const tc_algo tc_allgatherv_linear = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "linear",
    .desc = "direct exchange: every rank sends its block to every other rank",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
