/* Fold of a non-power-of-two process count for recursive doubling and
 * halving: with q the largest power of two <= p, each "extra" rank
 * r >= q first hands its block to core rank r - q and finally receives the
 * whole result from it.  A core rank u keeps a slot of 1 or 2 blocks in
 * scratch (block u, then block u + q when that rank exists); slots are laid
 * out in a caller-given position order, so that the blocks a core rank
 * holds after every step are one contiguous scratch range. */
#ifndef TC_ALGO_ALLGATHER_FOLD_H
#define TC_ALGO_ALLGATHER_FOLD_H

#include "blocks/ag_regions.h"

typedef struct ag_fold {
    int q, extras, bits;
    int *rank_at;      /* [q] core rank stored at position j */
    int64_t *slot_off; /* [q+1] block offset of position j in scratch */
} ag_fold;

/* bitrev_positions: 0 = position j holds core rank j, 1 = bit-reversed. */
int ag_fold_init(ag_fold *f, int p, int bitrev_positions);
void ag_fold_free(ag_fold *f);
/* Scratch region of the slots at positions [first, first + n). */
tc_region ag_fold_slots(const ag_fold *f, const tc_args *a, int first, int n);
/* Extra rank: send own block to its core partner, receive everything back. */
void ag_fold_extra(tc_sched *s, const tc_args *a, const ag_fold *f);
/* Core rank: put the own block (and the extra partner's) into its slot. */
void ag_fold_gather_in(tc_sched *s, const tc_args *a, const ag_fold *f, int my_pos);
/* Core rank: copy all slots to the receive buffer, serve the extra partner. */
void ag_fold_scatter_out(tc_sched *s, const tc_args *a, const ag_fold *f);

#endif
