/*
 * allgather "ring": p-1 steps, each rank passes on to its right neighbour
 * the block it received in the previous step (algorithm 4 of Pappalardo,
 * Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather Optimization with P2P
 * Implementations"; the large-message algorithm of MPICH and of section 3.1
 * of Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing
 * Multi-Leader-Based Allgather Algorithms for Multi-Core Clusters" (2009)).
 *
 * Steps: step 1 sends the own block to r+1 and receives block r-1 from r-1;
 *   step i (2 <= i <= p-1) forwards block r-i+1 and receives block r-i.
 * Cost: (p-1) (alpha + n beta); nearest-neighbour traffic only, so with a
 *   block mapping only two of the p-1 hops of every block cross a node
 *   boundary per node; with a cyclic mapping every hop may.
 * Memory: none beyond the receive buffer.
 * Generator: tc_allgather_ring_over (src/blocks/allgather_members.h) over
 *   all ranks, straight in the receive buffer.
 * Restrictions: none.
 * Source: Thakur, Rabenseifner, Gropp 2005; Pappalardo et al., algorithm 4.
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    return ag_flat_over(s, a, tc_allgather_ring_over);
}

/* Shift form: every rank sends one block to r+1 in each of the p-1 steps
 * (zero-size blocks and p = 1: the generator's schedule, which drops empty
 * steps). */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    if (a->size < 2 || a->scount <= 0 || a->rcount <= 0) return TC_SHIFT_NONE;
    int one = 1, rc;
    tc_shift_round rd = { 1, &one, &a->scount, 0, 0, 1, 0 };
    rc = sink(ctx, &rd);
    rd.cnt = &a->rcount;
    rd.repeat = a->size - 2;
    if (rc == 0 && rd.repeat > 0) rc = sink(ctx, &rd);
    return rc;
}

/* Cost function: p-1 steps to rank+1 of one block. */
static int tc_allgather_ring_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    for (int k = 1; k < t->size; k++) tc_cw_step(c, t, tc_cw_shift, NULL, 1, n);
    return 0;
}

const tc_algo tc_allgather_ring = {
    .cost = tc_allgather_ring_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "ring",
    .desc = "ring: p-1 nearest-neighbour steps of one block each",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__, .shift = shift_form,
};
