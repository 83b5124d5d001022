/* What the alltoall algorithms share: the catalog's types and the alltoall
 * layout's regions.  Blocks are counted in elements of each buffer's type:
 * block j of the send buffer is SEND[j*scount, scount] (the data for rank
 * j), block j of the receive buffer RECV[j*rcount, rcount] (the data from
 * rank j); scratch (TMP) and node-shared memory (SHM) are laid out in
 * receive-type blocks.  With MPI_IN_PLACE, SEND is RECV (the executor and
 * the verifier alias them; scount = rcount): a block may be overwritten only
 * after it was read, so the flat algorithms first copy the input to scratch
 * (a2a_save_input) and read it there (a2a_in). */
#ifndef TC_ALGO_ALLTOALL_COMMON_H
#define TC_ALGO_ALLTOALL_COMMON_H

#include "algo/catalog.h"
#include "pattern/pattern.h"

static inline tc_region a2a_send(const tc_args *a, int64_t first, int64_t nblocks)
{ return tc_reg(TC_BUF_SEND, first * a->scount, nblocks * a->scount); }

static inline tc_region a2a_recv(const tc_args *a, int64_t first, int64_t nblocks)
{ return tc_reg(TC_BUF_RECV, first * a->rcount, nblocks * a->rcount); }

static inline tc_region a2a_blocks(const tc_args *a, int buf, int64_t first, int64_t nblocks)
{ return tc_reg(buf, first * a->rcount, nblocks * a->rcount); }

/* In place: copy the whole input (p blocks) to TMP blocks [at, at + p), in a
 * round of its own; not in place: nothing. */
static inline void a2a_save_input(tc_sched *s, const tc_args *a, int64_t at)
{
    if (!a->in_place) return;
    tc_sched_copy(s, a2a_send(a, 0, a->size), a2a_blocks(a, TC_BUF_TMP, at, a->size));
    tc_sched_round(s);
}

/* Input block j (the data for rank j): SEND, or its copy in TMP from `at`. */
static inline tc_region a2a_in(const tc_args *a, int64_t at, int j)
{ return a->in_place ? a2a_blocks(a, TC_BUF_TMP, at + j, 1) : a2a_send(a, j, 1); }

#endif
