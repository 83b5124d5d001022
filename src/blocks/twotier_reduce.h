/*
 * Owner-based reduction in stages (Jain, Lau, Kale, "Collectives on Two-tier
 * Direct Networks" (2012), section 5.4), shared by reduce
 * "twotier" and reduce_scatter_block "twotier".  Tiers and wiring:
 * twotier_plan.h.
 *
 * The data (N elements in plan order) are cut into S segments, segment s
 * for supernode s (the caller chooses them: even pieces for reduce, the
 * blocks of s's ranks for reduce_scatter_block).
 *
 *   1. Inside every unit of several cores, the paper's clique reduction:
 *      core k owns the k-th of c even pieces, every core sends every owner
 *      its piece, owners reduce, owners send their pieces to the leader.
 *   2. Among the units of every supernode t, owner-based reduce-scatter with
 *      owners chosen for the next step ("the data can be left with the owner
 *      nodes and directly exchanged"): segment s is owned by t's gateway to
 *      s, unit (s mod n_t), so a unit owns the scattered segments
 *      s = i, i + n_t, ... .  Generalisation when S < n_t (fewer supernodes
 *      than units, which would idle units): segment s is split evenly among
 *      the units i = s, s + S, s + 2S, ... of t (the first of which is the
 *      gateway).  Every leader sends every owner its pieces; owners reduce.
 *   3. Among supernodes: every owner of a piece of segment s (s != t) sends
 *      it to the owners of segment s in supernode s (its "home" owners, by
 *      the same rule), overlaps only, as one message per pair; home owners
 *      reduce.  A message from unit u of t to unit v of s is routed
 *      u -> gateway(t, s) -> L2 -> gateway(s, t) -> v, the paper's path
 *      with its forwarding steps merged (section 5.3's remark).
 * Every stage posts all its messages at once into separate scratch areas
 * and reduces in the next round (the received copy becomes the
 * accumulator), so a rank never writes its input.
 *
 * Memory: (c-1) N/c + N (leaders of units of several cores) + (n_t - 1) W
 * + (S-1) H scratch, W the elements a unit owns in step 2 (about N/n_t),
 * H its home elements (about N/(S c_s)).
 */
#ifndef TC_ALGO_TWOTIER_REDUCE_H
#define TC_ALGO_TWOTIER_REDUCE_H

#include "blocks/twotier_plan.h"

typedef struct tt_red {
    const tt_plan *pl;
    int me;
    int64_t N;            /* elements, plan order */
    const int64_t *seg;   /* [S+1] segment of supernode s: [seg[s], seg[s+1]) */
    tc_region in;         /* the rank's input: N elements in plan order */
    int64_t tmp_top;      /* first free scratch element (scratch below is the caller's) */
    /* results of tt_red_run: */
    int home;             /* the rank leads a home owner of its supernode's segment */
    int64_t hx, hy;       /* its home elements [hx, hy) */
    tc_region hloc;       /* where their reduced values are (hy - hx elements) */
} tt_red;

/* Starts R for rank me over plan pl.  With a block b > 0 (reduce-scatter):
 * N = p b elements, segment s is supernode s's ranks' blocks, the input is
 * brought into plan order (a scratch copy, one round, when the plan is not
 * rank order).  With b = 0 (reduce): N elements split evenly over the
 * supernodes, the input SEND as it is.  R owns its segment table until
 * tt_red_end.  Returns 0 or ENOMEM. */
int tt_red_begin(tc_sched *s, tt_red *R, const tt_plan *pl, int me, int64_t N, int64_t b);
void tt_red_end(tt_red *R);

/* Stages 1-3 for R->me; every stage leaves no round open. */
void tt_red_run(tc_sched *s, tt_red *R);

/* Home owners of segment sg (in supernode sg): count, the k-th one's unit
 * and its elements [*x, *y). */
int tt_red_homes(const tt_red *R, int sg);
int tt_red_home_unit(const tt_red *R, int sg, int k);
void tt_red_home_range(const tt_red *R, int sg, int k, int64_t *x, int64_t *y);

/* Stage 2's ownership, for the landing variant (twotier_landing.h): in
 * supernode t, segment sg has tt_red_owners() owners; the k-th is unit
 * tt_red_owner_unit() and owns [*x, *y); local unit i of t is owner
 * tt_red_owner_index() (-1: none; O(1)).  tt_red_owned: the (segment, k)
 * pairs local unit i of t owns, in segment order: how many, the first in
 * *sg0, *k0, and the step between their segments. */
int tt_red_owners(const tt_red *R, int t, int sg);
int tt_red_owner_unit(const tt_red *R, int t, int sg, int k);
int tt_red_owner_index(const tt_red *R, int t, int sg, int i);
void tt_red_owner_range(const tt_red *R, int t, int sg, int k, int64_t *x, int64_t *y);
int tt_red_owned(const tt_red *R, int t, int i, int *sg0, int *k0, int *step);

/* Stages 1-2 only for R->me.  Returns the number m of (segment, k) pairs
 * its unit owns (tt_red_owned) with their reduced values in loc[0..m)
 * (malloc'ed into *loc, the caller frees it; NULL when m is 0), or -1 for a
 * core that is not its unit's leader (it is done).  An allocation failure
 * sets s->err and returns -1. */
int tt_red_stages12(tc_sched *s, tt_red *R, tc_region **loc);

#endif
