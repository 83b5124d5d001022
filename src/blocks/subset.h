/*
 * Collective building blocks over a subset of ranks whose data are
 * "bundles" laid out back to back in one buffer: bundle i of member i is
 * elements [off[i], off[i+1]) (plus base) of buffer buf.  Bundles may differ
 * in size (groups of unequal size), members are any ranks in any order.
 * Used by the hierarchical algorithms for their intra-group and
 * inter-leader phases.  Each function emits whole rounds: it starts after
 * the caller's last round and leaves no round open.  Every member must
 * already hold its own bundle when the function starts.
 */
#ifndef TC_ALGO_SUBSET_H
#define TC_ALGO_SUBSET_H

#include "sched/sched.h"

typedef struct tc_bundles {
    int n;              /* members */
    const int *ranks;   /* [n] rank of member i */
    const int64_t *off; /* [n+1] element offset of bundle i (relative to base) */
    int64_t base;       /* added to every offset */
    int buf;            /* TC_BUF_* holding the bundles */
} tc_bundles;

/* Bundles [first, first + count) as one region (no wrap-around). */
tc_region tc_bundles_range(const tc_bundles *b, int first, int count);

/* Allgather of the bundles among the members; me = caller's member index. */
void tc_subset_allgather_ring(tc_sched *s, const tc_bundles *b, int me);
void tc_subset_allgather_rd(tc_sched *s, const tc_bundles *b, int me);
void tc_subset_allgather_bruck(tc_sched *s, const tc_bundles *b, int me);

/* Binomial broadcast from member 0 of ranks[0..n): member 0 sends regs,
 * the others receive into regs (each rank passes its own regions; sizes
 * must agree). */
void tc_subset_bcast(tc_sched *s, const int *ranks, int n, int me,
                     const tc_region *regs, int nregs);

#endif
