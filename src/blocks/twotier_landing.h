/*
 * Reduction in stages with the last tier reduced where the L2 data land
 * (Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012),
 * section 5.4, as its Table 5 loads imply), shared by reduce and
 * reduce_scatter_block "twotier_landing".  Tiers and wiring:
 * twotier_plan.h; stages 1 and 2: twotier_reduce.h.
 *
 * The data (N elements in plan order) are cut into S segments, segment s
 * for supernode s, as in twotier_reduce.h; every unit v of supernode s has
 * a piece of segment s (the caller's tt_piece_fn; the pieces of s's units
 * tile segment s).
 *
 *   1-2. As twotier_reduce.h: the units' partials, then segment s of
 *        supernode t reduced at t's gateway to s (unit s mod n_t; split
 *        among units s, s + S, ... when S < n_t).
 *   3.   Landing: every owner of (a piece of) segment s (s != t) sends it to
 *        the unit its L2 link lands on, unit (t mod n_s) of s, which is
 *        reached over the L2 link and no L1 link of s.  Unit j of s reduces
 *        what lands on it (segment s from every supernode t != s with
 *        t mod n_s = j) and folds in what it owns of s's own segment from
 *        stage 2: it holds segment s reduced over its landing group.
 *   4.   Reduce-scatter inside every supernode s: every unit sends every
 *        other unit the part of its landing sum (or of its own stage-2
 *        piece, for a unit on which nothing lands) inside that unit's
 *        piece; every unit reduces the contributions to its piece.  Each
 *        supernode contributes to each element exactly once: through its
 *        landing unit, or (s itself) through the owner of that element.
 * Compared with twotier_reduce.h's stage 3 (forward everything that lands
 * to one owner per segment, which reduces S - 1 contributions), an L1 link
 * carries one piece (N / (S n_s)) instead of the landed segments, and the
 * reductions are spread over the landing units.  The order in which a
 * piece's contributions are combined follows the wiring, not the ranks:
 * commutative operations only.
 *
 * Messages: stage 3 one per owned foreign (segment, piece) and one per
 * landing supernode's owner; stage 4 at most n_s - 1 each way per unit.
 * Memory (per unit leader, besides stages 1-2): (landing supernodes) x
 * |segment| + n_s x |piece| scratch.
 */
#ifndef TC_ALGO_TWOTIER_LANDING_H
#define TC_ALGO_TWOTIER_LANDING_H

#include "blocks/twotier_reduce.h"

/* Piece [*x, *y) of unit u (a unit index of tt_plan) of its supernode's
 * segment; the pieces of a supernode's units tile its segment. */
typedef void (*tt_piece_fn)(const tt_red *R, int u, int64_t *x, int64_t *y);

/* Stages 1-4 for R->me.  Returns 1 when R->me leads its unit, with the
 * piece [*px, *py) of its unit fully reduced in *res; 0 for another core (it
 * has nothing); -1 after an allocation failure (s->err).  Every stage
 * leaves no round open. */
int tt_land_run(tc_sched *s, tt_red *R, tt_piece_fn piece, int64_t *px, int64_t *py, tc_region *res);

#endif
