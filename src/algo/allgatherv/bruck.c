/*
 * allgatherv "bruck": ceil(log2 p) steps for any p and any counts: the
 * allgather Bruck (src/algo/allgather/bruck.c), whose rotated scratch is
 * packed by the blocks' own counts.
 *
 * Steps: scratch holds block (r + j) mod p at the j-th place, the places
 *   packed by their counts; step k (distance d = 2^k) sends the first
 *   min(d, p-d) places to r-d and receives as many behind them from r+d;
 *   finally two contiguous copies to the receive buffer.
 * Cost: ceil(log2 p) alpha + (N - n_r) beta (N the sum of the counts) +
 *   a local copy of N.
 * Memory: N elements of scratch; p+1 offsets while generating.
 * Restrictions: none (zero counts: the empty sends and receives are
 *   dropped on both sides).
 * Source: Bruck, Ho, Kipnis, Upfal, Weathersby 1997; MPICH's
 *   allgatherv for short messages.
 */
#include "algo/cost_walk.h"
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_bruck;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_bruck, s, a, t);
}

/* Cost function: the allgather entry's, n the mean block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    return tc_allgather_bruck.cost(&tc_allgather_bruck, a, t, n, c);
}

const tc_algo tc_allgatherv_bruck = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHERV, .name = "bruck",
    .desc = "Bruck: ceil(log2 p) steps over scratch packed in rotated order, then two copies (any counts)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
