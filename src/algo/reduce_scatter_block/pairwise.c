/*
 * reduce_scatter_block "pairwise": pairwise exchange as MPICH runs it for
 * commutative operations (MPIR_Reduce_scatter_block_intra_pairwise), a
 * baseline of Table 1 of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks" (2012).
 *
 * Steps: the accumulator is the receive buffer (in place: block `rank` of
 *   it, which holds the rank's own contribution); otherwise the own block of
 *   the send buffer is copied there first.  At step i (1 <= i < p) rank r
 *   sends block (r+i) mod p of its input to r+i and receives block r of
 *   rank r-i into scratch; the block received at step i is reduced into the
 *   accumulator during step i+1 (two scratch blocks alternate).  In place,
 *   block r finally moves to block 0.
 * Cost: (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma (n = p blocks).
 * Memory: two blocks of scratch (one when p = 2).
 * Restrictions: commutative operations (contributions arrive in no rank
 *   order); others are declined.
 * Generator: tc_rs_pairwise (src/blocks/rs_blocks.h), shared with
 *   reduce_scatter "pairwise".
 * Source: Thakur, Rabenseifner, Gropp 2005; MPICH
 *   reduce_scatter_block_intra_pairwise.
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

/* Shift form: step i sends one block to r+i and reduces the block of the
 * step before; a last step reduces the last block. */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    int p = a->size, rc = 0;
    if (p < 2 || a->rcount <= 0) return TC_SHIFT_NONE;
    for (int i = 1; i < p && rc == 0; i++) {
        tc_shift_round rd = { 1, &i, &a->rcount, i > 1, i > 1 ? a->rcount : 0, 1, 0 };
        rc = sink(ctx, &rd);
    }
    tc_shift_round last = { 0, NULL, NULL, 1, a->rcount, 1, 0 };
    return rc ? rc : sink(ctx, &last);
}

/* Cost function: p-1 steps to rank+i of one block, each reduced. */
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

const tc_algo tc_reduce_scatter_block_pairwise = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "pairwise",
    .desc = "pairwise exchange (MPICH): p-1 steps, block r+i to r+i, reduce what r-i sent",
    .req = TC_REQ_COMMUTATIVE,
    .generate = generate, .source = __FILE__, .shift = shift_form,
};
