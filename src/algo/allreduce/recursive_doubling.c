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
 * Source: Thakur, Rabenseifner, Gropp, "Optimization of Collective
 *   Communication Operations in MPICH" (2005); MPICH allreduce_intra_recursive_doubling.
 */
#include "algo/allreduce/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    ar_fold f = ar_fold_of(a->size);
    int acc;
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->size > 1 ? n : 0);
    int v = ar_fold_in(s, a, &f, &acc);
    if (v >= 0) {
        for (int mask = 1; mask < f.q; mask <<= 1) {
            int pv = v ^ mask, peer = ar_real_rank(&f, pv), lower = v < pv;
            int other = ar_other(acc);
            tc_sched_round(s);
            tc_sched_send(s, peer, ar_all(acc, n));
            if (!lower && acc == TC_BUF_SEND) {   /* a writable copy of the input */
                tc_sched_copy(s, ar_all(TC_BUF_SEND, n), ar_all(TC_BUF_RECV, n));
                other = TC_BUF_TMP;
            }
            tc_sched_recv(s, peer, ar_all(other, n));
            tc_sched_round(s);
            if (lower) {
                tc_sched_reduce(s, ar_all(acc, n), ar_all(other, n));
                acc = other;
            } else {
                if (acc == TC_BUF_SEND) acc = TC_BUF_RECV;
                tc_sched_reduce(s, ar_all(other, n), ar_all(acc, n));
            }
        }
        if (acc != TC_BUF_RECV) tc_sched_copy(s, ar_all(acc, n), ar_all(TC_BUF_RECV, n));
        tc_sched_round(s);
    }
    ar_fold_out(s, a, &f);
    return 0;
}

const tc_algo tc_allreduce_recursive_doubling = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "recursive_doubling",
    .desc = "recursive doubling (butterfly) of the whole vector, non-power-of-two p folded; "
            "one expression tree on every rank",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
