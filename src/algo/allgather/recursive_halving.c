/*
 * allgather "recursive_halving": log2(p) exchange steps with partners at
 * distance p/2, p/4, ..., 1 while the data exchanged doubles (algorithm 6
 * of Pappalardo, Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather
 * Optimization with P2P Implementations": the far exchanges carry the small
 * messages).
 *
 * Steps: with q the largest power of two <= p (fold as in fold.h for any
 *   other p), core rank u works in scratch whose slots are ordered by the
 *   bit reversal of the rank: exchanging with u XOR q/2^(k+1) is then, in
 *   slot positions, exchanging the aligned group of 2^k slots, a contiguous
 *   range.  The slots are copied to their places in the receive buffer at
 *   the end.
 *   That is recursive doubling over the member map "core rank at slot
 *   position j = bitrev(j)" (tc_allgather_rd_over, src/blocks/fold.h).
 * Cost: log2(q) alpha + (p-1) n beta (+ 2 alpha + (p+1) n beta for the
 *   fold), plus a local copy of the whole result.
 * Memory: p n scratch.
 * Restrictions: none (Pappalardo et al.'s version needs a power of two and hangs at
 *   512 KB: every message here is nonblocking and matched).
 * Source: Pappalardo et al., algorithm 6; bit-reversed layout as in MPICH's
 *   recursive-halving reduce-scatter.
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"
#include "blocks/fold.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    return ag_fold_allgather(s, a, 1);
}

/* Cost function: ag_fold_cost (src/algo/allgather/fold_cost.c) in bit-reversed positions. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    return ag_fold_cost(c, t, n, 1);
}

const tc_algo tc_allgather_recursive_halving = {
    .cost = cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "recursive_halving",
    .desc = "recursive halving: log p steps, distance halving while data doubles (folded for any p)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
