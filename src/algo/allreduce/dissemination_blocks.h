/*
 * The block arithmetic shared by the shared-memory dissemination allreduce
 * entries (shm_dissemination.c, copy-in, and shm_dissemination_cma.c,
 * single copy).  Level k pairs the aligned block of 2^k ranks holding u with
 * its sibling block; rank u's partial P_k(u) combines u's own block at level
 * k.  Pure rank arithmetic and signal placement: no buffer layout.
 */
#ifndef TC_ALGO_DISSEMINATION_BLOCKS_H
#define TC_ALGO_DISSEMINATION_BLOCKS_H

#include "sched/sched.h"

/* First rank of the sibling block of u at level k (>= p: none). */
static inline int diss_sibling(int u, int k) { return ((u >> k) ^ 1) << k; }

/* Partials rank u computed in rounds 0..k-1 (rounds whose sibling block
 * exists). */
static inline int diss_combined(int u, int k, int p)
{
    int c = 0;
    for (int j = 0; j < k; j++)
        if (diss_sibling(u, j) < p) c++;
    return c;
}

/* Rank u's flags after computing P_{k+1} (or, k = -1, at the start): the
 * ranks of the sibling block at level k+1 when u is its block's first rank. */
static inline void diss_ready(tc_sched *s, int u, int k, int p, int L)
{
    int lv = k + 1;
    if (lv >= L || u % (1 << lv) != 0) return;
    int w = u ^ (1 << lv);
    for (int q = w; q < w + (1 << lv) && q < p; q++) tc_sched_signal(s, q);
}

#endif
