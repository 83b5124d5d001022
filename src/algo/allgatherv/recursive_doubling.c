/*
 * allgatherv "recursive_doubling": the allgather recursive doubling
 * (src/algo/allgather/recursive_doubling.c) on blocks of unequal size.
 *
 * Steps: log p exchanges with r xor d; the blocks exchanged at distance d
 *   are an aligned run of d rank-consecutive blocks, contiguous in the
 *   packed layout whatever their sizes.
 * Cost: log p alpha + (N - n_r) beta.
 * Memory: none beyond the receive buffer.
 * Restrictions: power-of-two p (the allgather entry folds other sizes
 *   through scratch slots of equal blocks, which unequal blocks lack).
 * Source: Thakur, Rabenseifner, Gropp 2005.
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_recursive_doubling;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_recursive_doubling, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_recursive_doubling.cost(&tc_allgather_recursive_doubling, a, t, n, c);
}

const tc_algo tc_allgatherv_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "recursive_doubling",
    .desc = "recursive doubling: log p steps, distance and data doubling (power-of-two p)",
    .req = TC_REQ_POW2_P, .generate = generate, .source = __FILE__,
};
