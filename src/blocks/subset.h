/*
 * Binomial broadcast over a subset of ranks (the distribution phase of the
 * hierarchical algorithms).  Emits whole rounds: it starts after the
 * caller's last round and leaves no round open.  The allgathers over a
 * subset are the generators of allgather_members.h over a member map.
 */
#ifndef TC_ALGO_SUBSET_H
#define TC_ALGO_SUBSET_H

#include "sched/sched.h"

/* Binomial broadcast from member 0 of ranks[0..n): member 0 sends regs,
 * the others receive into regs (each rank passes its own regions; sizes
 * must agree). */
void tc_subset_bcast(tc_sched *s, const int *ranks, int n, int me,
                     const tc_region *regs, int nregs);

#endif
