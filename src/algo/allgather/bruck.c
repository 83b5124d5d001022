/*
 * allgather "bruck": ceil(log2 p) steps for any p.
 *
 * Steps: scratch holds blocks r, r+1, ... (mod p) from index 0.  Step k
 *   (distance d = 2^k) sends the first min(d, p-d) blocks to r-d and
 *   receives as many from r+d behind them.  Finally block (r+i) mod p moves
 *   from scratch[i] to its place: two contiguous copies.
 *   Unequal blocks (the allgatherv entry): the slots are packed by their
 *   blocks' sizes (offsets are prefix sums over the rotated order, different
 *   at every rank); the sender's first places are exactly the receiver's
 *   places d .. d+c-1, so both regions stay contiguous and of equal size.
 *   Generator: tc_allgather_bruck_over (src/blocks/allgather_members.h) over
 *   all ranks with the rotated scratch as its layout.
 * Cost: ceil(log p) alpha + (p-1) n beta + a local copy of p n (unequal
 *   blocks: (N - n_r) beta + a copy of N, N the sum of the counts).
 * Memory: p n scratch (N).
 * Restrictions: none (zero counts: the empty messages are dropped on both
 *   sides).
 * Source: Bruck, Ho, Kipnis, Upfal, Weathersby 1997; MPICH's allgather for
 *   short messages at non-power-of-two p and allgatherv for short messages.
 */
#include "algo/cost_walk.h"
#include <errno.h>
#include <stdlib.h>

#include "algo/allgather/common.h"

/* Scratch slot j holds block (r + j) mod p; with unequal blocks (allgatherv)
 * the slots are packed by their blocks' sizes: offs[j] is where slot j
 * starts (p+1 offsets, in elements). */
static int rotated_slots(const tc_args *a, tc_bundles *b, int64_t **offs)
{
    int p = a->size, r = a->rank;
    *offs = NULL;
    *b = tc_bundles_at(TC_BUF_TMP, 0, NULL);
    b->rot = r;
    if (!a->v) {
        b->unit = a->rcount;
        return 0;
    }
    int64_t *o = malloc((size_t)(p + 1) * sizeof *o);
    if (!o) return ENOMEM;
    o[0] = 0;
    for (int j = 0; j < p; j++) {
        int blk = (r + j) % p;
        o[j + 1] = o[j] + ag_block_off(a, blk + 1) - ag_block_off(a, blk);
    }
    b->off = *offs = o;
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (p == 1) {
        tc_sched_copy(s, ag_own(a), ag_rbuf(a, 0, 1));
        return 0;
    }
    tc_bundles b;
    int64_t *offs;
    int rc = rotated_slots(a, &b, &offs);
    if (rc) return rc;
    tc_members all = tc_members_all(p, r);
    tc_region own = ag_own(a);
    tc_sched_need_tmp(s, tc_bundles_slots(&b, 0, p).cnt);
    tc_allgather_bruck_over(s, &all, &b, &own);
    tc_sched_copy(s, tc_bundles_slots(&b, 0, p - r), ag_rbuf(a, r, p - r));
    if (r > 0) tc_sched_copy(s, tc_bundles_slots(&b, p - r, r), ag_rbuf(a, 0, r));
    free(offs);
    return 0;
}

/* Cost function: step d = 1, 2, 4, .. < p to rank-d of min(d, p-d) blocks;
 * the final rotation copies p blocks. */
static int tc_allgather_bruck_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size;
    for (int d = 1; d < p; d <<= 1) tc_cw_step(c, t, tc_cw_shift, NULL, p - d, n * (d < p - d ? d : p - d));
    c->mem += p * n;
    return 0;
}

const tc_algo tc_allgather_bruck = {
    .cost = tc_allgather_bruck_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "bruck",
    .desc = "Bruck: ceil(log p) steps for any p, rotated scratch then one reorder",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
