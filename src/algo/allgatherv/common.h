/* What the allgatherv entries share.  Each allgatherv entry runs an
 * allgather generator on the allgatherv layout (src/blocks/ag_regions.h:
 * block b of RECV is RBUF[rdispls[b], rcounts[b]], rdispls the packed prefix
 * sums; the own block SEND[0, scount]); the generator addresses its blocks
 * only through ag_rbuf / ag_own, so unequal blocks, zero-size ones included,
 * need no change to it (Bruck packs its rotated scratch by the counts).
 * Entries whose generator addresses scratch by equal blocks carry
 * TC_REQ_EQUAL_BLOCKS and decline unequal counts. */
#ifndef TC_ALGO_ALLGATHERV_COMMON_H
#define TC_ALGO_ALLGATHERV_COMMON_H

#include "algo/catalog.h"

/* The allgather entry's generator for the allgatherv case a. */
static inline int agv_generate_with(const tc_algo *ag, tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tc_args b = *a;
    b.coll = TOPOCOLL_ALLGATHER;
    return ag->generate(s, &b, t);
}

#endif
