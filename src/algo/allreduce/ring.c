/*
 * allreduce "ring": ring reduce-scatter, then ring allgather.
 *
 * Steps: the n elements are p blocks (the first n mod p one element
 *   longer).  1. p-1 steps: at step i rank r sends block (r-i) mod p to its
 *   right neighbour, receives block (r-i-1) mod p from its left one into
 *   scratch and combines it into that block of its receive buffer (the
 *   partial from the left first); after them rank r holds block (r+1) mod p
 *   reduced over all ranks.  2. p-1 steps of a ring allgather of the blocks.
 *   Each result block is computed once and copied, so all ranks hold
 *   bitwise-identical results; the chains wrap around the ring, so the
 *   order is not the rank order.
 * Cost: 2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma.
 * Memory: one block (ceil(n/p)) of scratch.
 * Restrictions: commutative operations (declines the others).
 * Generator: tc_allreduce_ring_over (src/blocks/allreduce_members.h).
 * Source: Patarasuk, Yuan, "Bandwidth Optimal All-reduce Algorithms for
 *   Clusters of Workstations" (2009); MPICH allreduce_intra_ring.
 */
#include "algo/cost_walk.h"
#include "algo/allreduce/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size;
    int64_t n = a->scount, biggest = n / p + (n % p ? 1 : 0);
    tc_members all = tc_members_all(p, a->rank);
    tc_ar_regions x = ar_flat_regions(a, biggest);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, p > 1 ? biggest : 0);
    tc_allreduce_ring_over(s, &all, &x);
    return 0;
}

/* Shift form, when every block has the same size (p divides n): p-1 steps
 * of one block to r+1, each followed by a step reducing what came; then
 * p-1 steps of one block to r+1. */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    int p = a->size, one = 1, rc = 0;
    int64_t per = p > 0 ? a->scount / p : 0;
    if (p < 2 || per <= 0 || per * p != a->scount) return TC_SHIFT_NONE;
    tc_shift_round pass = { 1, &one, &per, 0, 0, 1, 0 }, red = { 0, NULL, NULL, 1, per, 1, 0 };
    for (int i = 0; i < p - 1 && rc == 0; i++) {
        rc = sink(ctx, &pass);
        if (rc == 0) rc = sink(ctx, &red);
    }
    pass.repeat = p - 1;
    return rc ? rc : sink(ctx, &pass);
}

/* Cost function: 2(p-1) steps to rank+1 of n/p, (p-1) blocks reduced. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size;
    for (int k = 1; k < 2 * p - 1; k++) tc_cw_step(c, t, tc_cw_shift, NULL, 1, n / p);
    c->reduced += (p - 1) * n / p;
    return 0;
}

const tc_algo tc_allreduce_ring = {
    .cost = cost,
    .coll = TOPOCOLL_ALLREDUCE, .name = "ring",
    .desc = "ring reduce-scatter + ring allgather (bandwidth-optimal, large vectors)",
    .req = TC_REQ_COMMUTATIVE, .generate = generate, .source = __FILE__, .shift = shift_form,
};
