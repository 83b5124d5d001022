/*
 * allreduce "recursive_doubling": butterfly exchange of the whole vector.
 *
 * Steps: fold a non-power-of-two p onto q = 2^floor(log2 p) ranks (common.h);
 *   then for mask = 1, 2, ..., q/2 new rank v exchanges its partial with
 *   v XOR mask and combines "lower op higher": both partners hold the
 *   partial of the aligned block of 2 mask new ranks (contiguous ranks in
 *   order), computed from bitwise-identical operands in the same order, so
 *   every rank evaluates the same expression tree and all results are
 *   bitwise identical (floating point too); then the fold is undone.
 *   The lower partner combines into the received copy, the higher one into
 *   its own (a copy of SEND into RECV when SEND is read-only).
 * Cost: log2 q (alpha + n beta + n gamma), plus 2 (alpha + n beta) + n gamma
 *   when p is not a power of two.
 * Memory: n scratch.
 * Restrictions: none (non-commutative operations in rank order).
 * Generator: tc_allreduce_rd_over (src/blocks/allreduce_members.h).
 * Source: Thakur, Rabenseifner, Gropp, "Optimization of Collective
 *   Communication Operations in MPICH" (2005); MPICH allreduce_intra_recursive_doubling.
 */
#include "algo/cost_walk.h"
#include "algo/allreduce/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_members all = tc_members_all(a->size, a->rank);
    tc_ar_regions x = ar_flat_regions(a, a->scount);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->size > 1 ? a->scount : 0);
    tc_allreduce_rd_over(s, &all, &x);
    return 0;
}


/* Cost function: the fold in (n, reduced), log2 q exchanges of n with
 * new rank XOR d, each reduced, the fold out (n). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size, q = tc_cw_pow2_floor(p);
    if (q < p) {
        tc_cw_step(c, t, tc_cw_fold_in, NULL, 0, n);
        c->reduced += n;
    }
    for (int d = 1; d < q; d <<= 1) {
        tc_cw_step(c, t, tc_cw_fold_xor, NULL, d, n);
        c->reduced += n;
    }
    if (q < p) tc_cw_step(c, t, tc_cw_fold_out, NULL, 0, n);
    return 0;
}

const tc_algo tc_allreduce_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_ALLREDUCE, .name = "recursive_doubling",
    .desc = "recursive doubling (butterfly) of the whole vector, non-power-of-two p folded; "
            "one expression tree on every rank",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
