/*
 * What the "shm_inline" reductions (allreduce, reduce) share (header only):
 * the fold of every rank's publication on the inline lines (sched.h's
 * PUBLISH / COLLECT) into RECV[0, n) in rank order,
 *   c_0 op (c_1 op (... op c_{p-1})),
 * one expression evaluated alike wherever it is evaluated, so the results
 * are bitwise identical and a non-commutative operation keeps MPI's order.
 * Round 0 publishes the input; round 1 folds: from p-1 down to 0 each
 * contribution is collected (the first one straight into RECV, the others
 * into TMP and reduced into RECV); the own one comes from SEND, or, in
 * place, from RECV (when it is the first) or the own slot.
 */
#ifndef TC_ALGO_INLINE_FOLD_H
#define TC_ALGO_INLINE_FOLD_H

#include "sched/sched.h"

/* Publish the input (every rank of the call alike: the slots' size). */
static inline void tc_inline_publish_input(tc_sched *s, int in_place, int64_t n)
{
    tc_sched_need_inline(s, n);
    tc_sched_publish(s, tc_reg(in_place ? TC_BUF_RECV : TC_BUF_SEND, 0, n), n);
    tc_sched_round(s);
}

/* Rank me folds the p ranks' publications into RECV. */
static inline void tc_inline_fold(tc_sched *s, int p, int me, int in_place, int64_t n)
{
    tc_region out = tc_reg(TC_BUF_RECV, 0, n), tmp = tc_reg(TC_BUF_TMP, 0, n);
    for (int r = p - 1; r >= 0; r--) {
        int first = r == p - 1;
        if (r == me && !in_place) {   /* the own input, without the lines */
            if (first) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, n), out);
            else tc_sched_reduce(s, tc_reg(TC_BUF_SEND, 0, n), out);
        } else if (first) {           /* in place and me: already there */
            if (r != me) tc_sched_collect(s, r, n, out);
        } else {
            tc_sched_need_tmp(s, n);
            tc_sched_collect(s, r, n, tmp);
            tc_sched_reduce(s, tmp, out);
        }
    }
    tc_sched_round(s);
}

#endif
