/*
 * What the point-to-point allreduce schedules share (header only).
 *
 * Canonical order.  Every allreduce schedule combines contributions only as
 * "lower rank range op higher rank range" (a REDUCE op computes b = a op b,
 * so the lower range is always the op's first region), and either computes
 * each result element exactly once and copies it (reduce_bcast, ring,
 * reduce_scatter_allgather) or has every rank evaluate the same expression
 * tree on bitwise-identical operands (recursive_doubling).  So every rank
 * ends with a bitwise-identical result, floating point included, and a
 * non-commutative operation is reduced in rank order wherever the ranges
 * stay contiguous (everything but ring, which declines such operations).
 *
 * Buffers: the input is SEND (RECV when in place: the regions alias, so the
 * generators name RECV directly); RECV is the writable result; TMP holds n
 * elements of scratch per slot.
 *
 * Fold of a non-power-of-two p (as the reduce family does): with q the
 * largest power of two <= p and rem = p - q, among ranks < 2 rem each odd
 * rank sends its input to the even rank below, which combines (even op odd)
 * and stands for both under the new rank r / 2; ranks >= 2 rem are new rank
 * r - rem.  The new ranks 0..q-1 cover contiguous, increasing rank ranges.
 * At the end each even rank < 2 rem sends the result to the odd one.
 */
#ifndef TC_ALGO_ALLREDUCE_COMMON_H
#define TC_ALGO_ALLREDUCE_COMMON_H

#include "algo/catalog.h"
#include "pattern/pattern.h"

typedef struct ar_fold {
    int q, rem;
} ar_fold;

static inline ar_fold ar_fold_of(int p)
{
    ar_fold f;
    f.q = tc_pow2_floor(p);
    f.rem = p - f.q;
    return f;
}

static inline int ar_real_rank(const ar_fold *f, int v) { return v < f->rem ? 2 * v : v + f->rem; }

/* The input buffer: SEND, or RECV when in place. */
static inline int ar_input(const tc_args *a) { return a->in_place ? TC_BUF_RECV : TC_BUF_SEND; }

static inline tc_region ar_all(int buf, int64_t n) { return tc_reg(buf, 0, n); }

/* Fold in: returns the new rank (-1: this rank dropped out and waits for
 * ar_fold_out); *acc is the buffer holding this rank's partial (TMP needs n). */
static inline int ar_fold_in(tc_sched *s, const tc_args *a, const ar_fold *f, int *acc)
{
    int r = a->rank;
    int64_t n = a->scount;
    *acc = ar_input(a);
    if (r >= 2 * f->rem) return r - f->rem;
    if (r % 2) {
        tc_sched_send(s, r - 1, ar_all(*acc, n));
        tc_sched_round(s);
        return -1;
    }
    tc_sched_recv(s, r + 1, ar_all(TC_BUF_TMP, n));
    tc_sched_round(s);
    tc_sched_reduce(s, ar_all(*acc, n), ar_all(TC_BUF_TMP, n));   /* even op odd */
    tc_sched_round(s);
    *acc = TC_BUF_TMP;
    return r / 2;
}

/* Fold out: the result (in RECV) to the ranks that dropped out. */
static inline void ar_fold_out(tc_sched *s, const tc_args *a, const ar_fold *f)
{
    int r = a->rank;
    if (r >= 2 * f->rem) return;
    if (r % 2) tc_sched_recv(s, r - 1, ar_all(TC_BUF_RECV, a->rcount));
    else tc_sched_send(s, r + 1, ar_all(TC_BUF_RECV, a->rcount));
    tc_sched_round(s);
}

/* The scratch buffer a partial goes to next: TMP, or RECV when the partial is in TMP. */
static inline int ar_other(int acc) { return acc == TC_BUF_TMP ? TC_BUF_RECV : TC_BUF_TMP; }

#endif
