/*
 * allgather "recursive_doubling": log2(p) exchange steps with partners at
 * distance 1, 2, 4, ..., the data exchanged doubling every step (algorithm
 * 5 of Pappalardo, Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather
 * Optimization with P2P Implementations"; the small-message algorithm of
 * section 3.1 of Kandalla, Subramoni, Santhanaraman, Koop, Panda,
 * "Designing Multi-Leader-Based Allgather Algorithms for Multi-Core
 * Clusters" (2009)).
 *
 * Steps (p a power of two): step k exchanges with r XOR 2^k the 2^k blocks
 *   of r's aligned group, straight in the receive buffer.
 *   Any other p: fold (see fold.h): the p - q extra ranks hand their block to
 *   a core rank, the q core ranks run the power-of-two algorithm on 1- or
 *   2-block slots in scratch, copy out, and send the full result back.
 * Cost: log2(p) alpha + (p-1) n beta for a power of two; otherwise
 *   (log2(q) + 2) alpha + (p-1 + p + 1) n beta on the core ranks that serve
 *   an extra (the final full send dominates).
 * Memory: none for a power of two; otherwise (p rounded to slots) * n scratch
 *   on core ranks.
 * Restrictions: none (Pappalardo et al.'s version needs a power of two).
 * Generator: tc_allgather_rd_over (src/blocks/allgather_members.h): over all
 *   ranks in the receive buffer, or over the core ranks' slots (fold.h).
 * Source: Thakur, Rabenseifner, Gropp 2005; the fold as in Rabenseifner's
 *   reduction algorithms.
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"
#include "blocks/fold.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (tc_is_pow2(a->size)) return ag_flat_over(s, a, tc_allgather_rd_over);
    return ag_fold_allgather(s, a, 0);
}

/* Cost function: ag_fold_cost (src/algo/allgather/fold_cost.c) in rank positions. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    return ag_fold_cost(c, t, n, 0);
}

const tc_algo tc_allgather_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "recursive_doubling",
    .desc = "recursive doubling: log p steps, distance and data doubling (folded for any p)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
