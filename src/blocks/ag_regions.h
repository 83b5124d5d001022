/* Regions of the allgather layout, shared by the allgather algorithms and
 * the building blocks that work in it (fold).  Blocks are counted in
 * elements of the receive type: block b of the receive buffer is
 * RBUF[b*rcount, rcount]; the calling rank's contribution is SBUF[0, scount]
 * (the executor and the verifier alias it to the rank's own block for
 * MPI_IN_PLACE).  Scratch (TMP) is laid out in receive-type elements.
 *
 * Unequal blocks (allgatherv, tc_args.v set): block b is
 * RBUF[rdispls[b], rcounts[b]], where rdispls are the packed prefix sums of
 * rcounts (the schedule's layout; the API stages a user layout that differs),
 * so blocks first .. first+n-1 are one contiguous region.  Scratch keeps
 * equal blocks of rcount: the algorithms that address TMP by block decline
 * unequal counts (TC_REQ_EQUAL_BLOCKS). */
#ifndef TC_BLOCKS_AG_REGIONS_H
#define TC_BLOCKS_AG_REGIONS_H

#include <errno.h>
#include <stdlib.h>

#include "blocks/allgather_members.h"
#include "coll/coll.h"
#include "sched/sched.h"

/* Element offset of block b (0 <= b <= size: b = size is the end). */
static inline int64_t ag_block_off(const tc_args *a, int b)
{
    if (!a->v) return (int64_t)b * a->rcount;
    if (b >= a->size) return a->v->rdispls[a->size - 1] + a->v->rcounts[a->size - 1];
    return a->v->rdispls[b];
}

static inline tc_region ag_rbuf(const tc_args *a, int first, int nblocks)
{
    int64_t lo = ag_block_off(a, first);
    return tc_reg(TC_BUF_RECV, lo, ag_block_off(a, first + nblocks) - lo);
}

static inline tc_region ag_tmp(const tc_args *a, int64_t first, int64_t nblocks)
{ return tc_reg(TC_BUF_TMP, first * a->rcount, nblocks * a->rcount); }

static inline tc_region ag_own(const tc_args *a)
{ return tc_reg(TC_BUF_SEND, 0, a->scount); }

/* The receive buffer's blocks as a bundle layout in rank order
 * (allgather_members.h).  Unequal blocks need p+1 offsets: *offs holds them
 * (NULL otherwise); the caller frees it.  Returns 0 or ENOMEM. */
static inline int ag_rbuf_bundles(const tc_args *a, tc_bundles *b, int64_t **offs)
{
    *offs = NULL;
    *b = tc_bundles_at(TC_BUF_RECV, 0, NULL);
    if (!a->v) {
        b->unit = a->rcount;
        return 0;
    }
    *offs = malloc((size_t)(a->size + 1) * sizeof **offs);
    if (!*offs) return ENOMEM;
    for (int i = 0; i <= a->size; i++) (*offs)[i] = ag_block_off(a, i);
    b->off = *offs;
    return 0;
}

/* The allgather entries' generator over all ranks in rank order, straight
 * in the receive buffer (ring, recursive doubling at a power of two). */
static inline int ag_flat_over(tc_sched *s, const tc_args *a,
                               void (*gen)(tc_sched *, const tc_members *, const tc_bundles *,
                                           const tc_region *))
{
    tc_bundles b;
    int64_t *offs;
    int rc = ag_rbuf_bundles(a, &b, &offs);
    if (rc) return rc;
    tc_members m = tc_members_all(a->size, a->rank);
    tc_region own = ag_own(a);
    gen(s, &m, &b, &own);
    free(offs);
    return 0;
}

#endif
