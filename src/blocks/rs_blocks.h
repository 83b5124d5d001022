/*
 * Reduce-scatter generators over blocks of any size, shared by
 * reduce_scatter_block (p blocks of rcount) and reduce_scatter (block j of
 * rcounts[j] elements at the packed displacement rdispls[j], tc_args.v).
 *
 * Buffers: the input vector is SEND (RECV when in place: SEND aliases RECV
 * from element 0, so naming SEND reads RECV); rank r's result goes to
 * RECV[0, count of block r).  A generator reads all of its input before it
 * writes RECV's first block when in place.  TMP takes SEND's type.
 *
 * Orders: REDUCE computes b = a op b, a the lower rank range.  Pairwise and
 * ring combine contributions in the order they arrive (commutative
 * operations only); recursive halving keeps rank order (any operation).
 */
#ifndef TC_BLOCKS_RS_BLOCKS_H
#define TC_BLOCKS_RS_BLOCKS_H

#include "coll/coll.h"
#include "sched/sched.h"

/* The blocks of the vector: counts and packed displacements per rank, or
 * (cnt NULL) p blocks of b elements. */
typedef struct tc_rs_blocks {
    int p;
    int64_t b;
    const int64_t *cnt, *off;
} tc_rs_blocks;

/* The blocks of a call: tc_args.v's rcounts / rdispls where given, else p
 * blocks of rcount. */
static inline tc_rs_blocks tc_rs_blocks_of(const tc_args *a)
{
    tc_rs_blocks B = { a->size, a->rcount, a->v ? a->v->rcounts : NULL, a->v ? a->v->rdispls : NULL };
    return B;
}

static inline int64_t tc_rs_cnt(const tc_rs_blocks *B, int j) { return B->cnt ? B->cnt[j] : B->b; }
static inline int64_t tc_rs_off(const tc_rs_blocks *B, int j) { return B->off ? B->off[j] : (int64_t)j * B->b; }
/* The elements before block j (j = p: the whole vector). */
static inline int64_t tc_rs_end(const tc_rs_blocks *B, int j)
{ return j >= B->p ? tc_rs_off(B, B->p - 1) + tc_rs_cnt(B, B->p - 1) : tc_rs_off(B, j); }
static inline int64_t tc_rs_max(const tc_rs_blocks *B)
{
    int64_t m = 0;
    for (int j = 0; j < B->p; j++)
        if (tc_rs_cnt(B, j) > m) m = tc_rs_cnt(B, j);
    return m;
}

/* Block j of the input vector (SEND; RECV's when in place, by aliasing). */
static inline tc_region tc_rs_input(const tc_rs_blocks *B, int j)
{ return tc_reg(TC_BUF_SEND, tc_rs_off(B, j), tc_rs_cnt(B, j)); }

/* Pairwise exchange (MPICH's for commutative operations): step i sends
 * block r+i to r+i, receives block r from r-i and reduces it in the step
 * after.  Scratch: two blocks of r's count (one when p = 2). */
void tc_rs_pairwise(tc_sched *s, const tc_args *a, const tc_rs_blocks *B);

/* Ring: p-1 steps; step i sends the partial of block r-i-1 to the right
 * and receives that of block r-i-2 from the left, which r combines with
 * its own part.  Scratch: two slots of the largest block. */
void tc_rs_ring(tc_sched *s, const tc_args *a, const tc_rs_blocks *B);

/* Recursive halving with the distance doubling, the fold of a non-power-of-
 * two p first (odd ranks below 2 rem hand their vector to the even one
 * below).  Blocks stay whole: new rank v stands for one or two ranks'
 * blocks, the vector is kept in scratch in bit-reversed order of those
 * super-blocks, so each step splits a contiguous range at a block
 * boundary.  Rank order kept.  Scratch: twice the vector.  Returns 0. */
int tc_rs_halving(tc_sched *s, const tc_args *a, const tc_rs_blocks *B);

#endif
