/*
 * reduce_scatter "pairwise": pairwise exchange as MPICH runs it for
 * commutative operations and long vectors (MPIR_Reduce_scatter_intra_pairwise),
 * on blocks of any size.
 *
 * Steps: the accumulator is the receive buffer (in place: block `rank` of
 *   the vector); otherwise the own block of the send buffer is copied there
 *   first.  At step i (1 <= i < p) rank r sends block (r+i) mod p of its
 *   input to r+i and receives block r of rank r-i into scratch; the block
 *   received at step i is reduced into the accumulator during step i+1 (two
 *   scratch blocks alternate).  In place, block r finally moves to element
 *   0 (through scratch where the two overlap).
 * Cost: (p-1) alpha + (n - n_r) beta + (n - n_r) gamma (n the vector, n_r
 *   rank r's block); p-1 messages whatever the counts, zero-size blocks
 *   included (they are dropped).
 * Memory: two of the rank's blocks of scratch (one when p = 2).
 * Restrictions: commutative operations (contributions arrive in no rank
 *   order); others are declined.
 * Generator: tc_rs_pairwise (src/blocks/rs_blocks.h), shared with
 *   reduce_scatter_block "pairwise".
 * Source: Thakur, Rabenseifner, Gropp, "Optimization of Collective
 *   Communication Operations in MPICH" (2005), section 4.3; MPICH
 *   reduce_scatter_intra_pairwise.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "blocks/rs_blocks.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_rs_blocks B = tc_rs_blocks_of(a);
    tc_rs_pairwise(s, a, &B);
    return 0;
}

/* Cost function (n: one block): p-1 steps to rank+i of one block, each
 * reduced. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    for (int d = 1; d < t->size; d++) {
        tc_cw_step(c, t, tc_cw_shift, NULL, d, n);
        c->reduced += n;
    }
    return 0;
}

const tc_algo tc_reduce_scatter_pairwise = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE_SCATTER, .name = "pairwise",
    .desc = "pairwise exchange (MPICH): p-1 steps, block r+i to r+i, reduce what r-i sent",
    .req = TC_REQ_COMMUTATIVE,
    .generate = generate, .source = __FILE__,
};
