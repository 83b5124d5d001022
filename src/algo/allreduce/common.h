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
 * Recursive doubling, reduce_scatter_allgather and ring are the generators
 * of src/blocks/allreduce_members.h over all ranks (their fold of a
 * non-power-of-two p is described there).
 *
 * Buffers: the input is SEND (RECV when in place: the regions alias, so the
 * generators name RECV directly); RECV is the writable result; TMP holds n
 * elements of scratch per slot.
 */
#ifndef TC_ALGO_ALLREDUCE_COMMON_H
#define TC_ALGO_ALLREDUCE_COMMON_H

#include "algo/catalog.h"
#include "blocks/allreduce_members.h"
#include "pattern/pattern.h"

/* The input buffer: SEND, or RECV when in place. */
static inline int ar_input(const tc_args *a) { return a->in_place ? TC_BUF_RECV : TC_BUF_SEND; }

static inline tc_region ar_all(int buf, int64_t n) { return tc_reg(buf, 0, n); }

/* The flat allreduce regions over all ranks: input SEND (RECV in place),
 * data RECV, scratch TMP from 0 (scratch_cnt elements). */
static inline tc_ar_regions ar_flat_regions(const tc_args *a, int64_t scratch_cnt)
{
    tc_ar_regions x;
    x.input = ar_all(ar_input(a), a->scount);
    x.data = ar_all(TC_BUF_RECV, a->scount);
    x.scratch = ar_all(TC_BUF_TMP, scratch_cnt);
    x.piece = 0;
    return x;
}

#endif
