/*
 * Allreduce among a subset of the ranks on one region (the leaders'
 * exchange of the hierarchical allreduce): recursive doubling,
 * Rabenseifner's reduce-scatter + allgather, ring.  The data are in a
 * writable region (RECV) of every member and the result replaces them;
 * scratch is TMP from tmp_off (cnt elements).  Members are listed in one
 * order on every member; the combination is "lower list position op
 * higher" (recursive doubling: one expression tree on every member; the
 * others compute each element once), so every member ends with a
 * bitwise-identical result.  Non-power-of-two lists are folded as in
 * common.h.  Every function closes its rounds.
 */
#ifndef TC_ALGO_ALLREDUCE_SUBSET_H
#define TC_ALGO_ALLREDUCE_SUBSET_H

#include "algo/catalog.h"

typedef struct ar_sub {
    const int *ranks;   /* the members, in list order */
    int n;              /* how many */
    int me;             /* this rank's position in the list */
    tc_region reg;      /* the data (writable) */
    int64_t tmp_off;    /* scratch: TMP [tmp_off, tmp_off + reg.cnt) */
    int64_t piece;      /* ring: messages of at most this many elements, all
                           posted in the step's round (0: whole blocks) */
} ar_sub;

/* The part [*lo, *lo + *kept) of a region of cnt elements that ar_sub_rsa's
 * first round on member me of n neither sends nor receives into (*kept 0:
 * none): the work that produces it may be placed in that round, beside the
 * messages (the round's local ops run while its messages travel).  The
 * whole region for a member that first receives its neighbour's vector
 * (folding in); its half of the first exchange otherwise. */
void ar_sub_rsa_first_kept(int n, int me, int64_t cnt, int64_t *lo, int64_t *kept);

void ar_sub_rd(tc_sched *s, const ar_sub *x);
void ar_sub_rsa(tc_sched *s, const ar_sub *x);
void ar_sub_ring(tc_sched *s, const ar_sub *x);

#endif
