/*
 * Allreduce generators over a member map (members.h): the one recursive
 * doubling, Rabenseifner reduce-scatter + allgather and ring of the
 * library, used by the flat allreduce entries (identity map; input SEND,
 * result RECV) and by the leaders' exchange of the hierarchical allreduce
 * (the node leaders; one writable region).
 *
 * Regions: input holds the member's contribution and is only read (it may
 * be the data region itself: in place); data (writable) receives the
 * result; scratch holds data.cnt elements.  Each generator copies input to
 * data where that costs no round of its own (beside a message).
 *
 * Canonical order.  Contributions are combined only as "lower member range
 * op higher member range" (a REDUCE computes b = a op b, so the lower range
 * is always the op's first region), and either each result element is
 * computed exactly once and copied (rsa, ring) or every member evaluates
 * the same expression tree on bitwise-identical operands (rd).  So every
 * member ends with a bitwise-identical result, floating point included, and
 * a non-commutative operation is reduced in member order wherever the
 * ranges stay contiguous (all but ring, whose chains wrap around).
 *
 * Fold of a non-power-of-two n: with q the largest power of two <= n and
 * rem = n - q, among members < 2 rem each odd one sends its input to the
 * even one below, which combines (even op odd) and stands for both as new
 * index i / 2; members >= 2 rem are new index i - rem.  At the end each
 * even member < 2 rem sends the result to the odd one.
 *
 * Each function starts in the caller's open round (its first messages join
 * any local ops the caller left there) and closes its rounds.
 */
#ifndef TC_BLOCKS_ALLREDUCE_MEMBERS_H
#define TC_BLOCKS_ALLREDUCE_MEMBERS_H

#include "blocks/members.h"
#include "sched/sched.h"

typedef struct tc_ar_regions {
    tc_region input;    /* the contribution (read only; may equal data) */
    tc_region data;     /* writable: the result */
    tc_region scratch;  /* data.cnt elements (ring: one block) */
    int64_t piece;      /* ring: messages of at most this many elements, all
                           posted in the step's round (0: whole blocks) */
} tc_ar_regions;

/* rd: fold, then for mask = 1, 2, .., q/2 exchange the whole partial with
 *   new index v XOR mask and combine "lower op higher"; unfold.
 * rsa: fold; reduce-scatter by recursive halving (mask 1 .. q/2: the lower
 *   partner keeps the lower half of its block range; q blocks, the first
 *   cnt mod q one element longer); allgather by recursive doubling (mask
 *   q/2 .. 1) in data; unfold.
 * ring: n blocks (the first cnt mod n one element longer); n-1 steps of
 *   a ring reduce-scatter (block me-i to the right, block me-i-1 from the
 *   left combined into data), then n-1 steps of a ring allgather. */
void tc_allreduce_rd_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x);
void tc_allreduce_rsa_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x);
void tc_allreduce_ring_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x);

/* The part [*lo, *lo + *kept) of a region of cnt elements that
 * tc_allreduce_rsa_over's first round on member me of n neither sends nor
 * receives into (*kept 0: none): work that produces it may be placed in
 * that round, beside the messages.  The whole region for a member that
 * first receives its neighbour's vector (folding in); its half of the first
 * exchange otherwise. */
void tc_allreduce_rsa_first_kept(int n, int me, int64_t cnt, int64_t *lo, int64_t *kept);

#endif
