/* Regions of the allgather layout, shared by the allgather algorithms and
 * the building blocks that work in it (fold).  Blocks are counted in
 * elements of the receive type: block b of the receive buffer is
 * RBUF[b*rcount, rcount]; the calling rank's contribution is SBUF[0, scount]
 * (the executor and the verifier alias it to the rank's own block for
 * MPI_IN_PLACE).  Scratch (TMP) is laid out in receive-type elements. */
#ifndef TC_BLOCKS_AG_REGIONS_H
#define TC_BLOCKS_AG_REGIONS_H

#include "coll/coll.h"
#include "sched/sched.h"

static inline tc_region ag_rbuf(const tc_args *a, int first, int nblocks)
{ return tc_reg(TC_BUF_RECV, (int64_t)first * a->rcount, (int64_t)nblocks * a->rcount); }

static inline tc_region ag_tmp(const tc_args *a, int64_t first, int64_t nblocks)
{ return tc_reg(TC_BUF_TMP, first * a->rcount, nblocks * a->rcount); }

static inline tc_region ag_own(const tc_args *a)
{ return tc_reg(TC_BUF_SEND, 0, a->scount); }

#endif
