/*
 * What the scan and exscan schedules share (header only).
 *
 * Buffers: the input is SEND (RECV when in place: the regions alias, so the
 * generators name RECV directly, and read it before they write it); RECV
 * holds the result (exscan: nothing at rank 0, whose RECV is never
 * written); TMP holds scratch of n elements per slot (tmp_like SEND).
 *
 * Order: every REDUCE combines "lower rank range op higher rank range" (a
 * REDUCE op computes b = a op b, so the received partial, which covers the
 * ranks just below, is always the op's first region).  So the schedules
 * need no commutative operation: each result is the operation over ranks
 * 0..r (0..r-1) in rank order, as MPI_Scan and MPI_Exscan define it.
 */
#ifndef TC_ALGO_SCAN_COMMON_H
#define TC_ALGO_SCAN_COMMON_H

#include "algo/catalog.h"

/* Is the call an exclusive scan? */
static inline int sc_exclusive(const tc_args *a) { return a->coll == TOPOCOLL_EXSCAN; }

/* The input: SEND, or RECV when in place. */
static inline tc_region sc_input(const tc_args *a)
{
    return tc_reg(a->in_place ? TC_BUF_RECV : TC_BUF_SEND, 0, a->scount);
}

static inline tc_region sc_result(const tc_args *a) { return tc_reg(TC_BUF_RECV, 0, a->scount); }

/* Scratch slot k (n elements). */
static inline tc_region sc_tmp(const tc_args *a, int k) { return tc_reg(TC_BUF_TMP, k * a->scount, a->scount); }

static inline int sc_same(tc_region x, tc_region y) { return x.buf == y.buf && x.off == y.off; }

/* Into acc, the partial `got` that arrived from the ranks just below: a copy
 * when acc holds nothing yet (first), else got op acc. */
static inline void sc_fold(tc_sched *s, tc_region got, tc_region acc, int first)
{
    if (first) tc_sched_copy(s, got, acc);
    else tc_sched_reduce(s, got, acc);
}

/* The shift of an exclusive scan computed inclusively in `x`: rank r sends
 * x to r + 1 and receives rank r - 1's into RECV (one round). */
static inline void sc_shift(tc_sched *s, const tc_args *a, tc_region x)
{
    if (a->rank + 1 < a->size) tc_sched_send(s, a->rank + 1, x);
    if (a->rank > 0) tc_sched_recv(s, a->rank - 1, sc_result(a));
    tc_sched_round(s);
}

#endif
