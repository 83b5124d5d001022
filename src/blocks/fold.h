/* Fold of a non-power-of-two process count for recursive doubling and
 * halving, as a composition of phases: with q the largest power of two
 * <= p, each "extra" rank r >= q first hands its block to core rank r - q
 * (aggregation) and finally receives the whole result from it
 * (distribution); in between the q core ranks run recursive doubling
 * (tc_allgather_rd_over) over a member map of the core ranks in slot
 * position order.  A core rank u keeps a slot of 1 or 2 blocks in scratch
 * (block u, then block u + q when that rank exists); the slots are laid out
 * in position order, so the blocks a core rank holds after every step are
 * one contiguous scratch range.  Positions: core rank j at position j
 * (recursive doubling) or at position bitrev(j) (recursive halving: the
 * partner at distance q/2, q/4, .. is then the one at position distance 1,
 * 2, ..). */
#ifndef TC_ALGO_ALLGATHER_FOLD_H
#define TC_ALGO_ALLGATHER_FOLD_H

#include "blocks/ag_regions.h"

typedef struct ag_fold {
    int q, extras, bits;
    int *rank_at;      /* [q] core rank stored at position j: the member map */
    int64_t *slot_off; /* [q+1] block offset of position j in scratch */
} ag_fold;

/* bitrev_positions: 0 = position j holds core rank j, 1 = bit-reversed. */
int ag_fold_init(ag_fold *f, int p, int bitrev_positions);
void ag_fold_free(ag_fold *f);

/* The whole folded allgather of a (any p): fold in, recursive doubling over
 * the core ranks' slots, copy out and fold out.  Returns 0 or ENOMEM. */
int ag_fold_allgather(tc_sched *s, const tc_args *a, int bitrev_positions);

#endif
