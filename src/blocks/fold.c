/* Fold of non-power-of-two process counts for recursive doubling and
 * halving (see fold.h). */
#include "blocks/fold.h"
#include "pattern/pattern.h"

#include <errno.h>
#include <stdlib.h>

int ag_fold_init(ag_fold *f, int p, int bitrev_positions)
{
    f->q = tc_pow2_floor(p);
    f->extras = p - f->q;
    f->bits = tc_log2_ceil(f->q);
    f->rank_at = malloc((size_t)f->q * sizeof *f->rank_at);
    f->slot_off = malloc((size_t)(f->q + 1) * sizeof *f->slot_off);
    if (!f->rank_at || !f->slot_off) {
        ag_fold_free(f);
        return ENOMEM;
    }
    f->slot_off[0] = 0;
    for (int j = 0; j < f->q; j++) {
        int u = bitrev_positions ? tc_bitrev(j, f->bits) : j;
        f->rank_at[j] = u;
        f->slot_off[j + 1] = f->slot_off[j] + 1 + (u < f->extras);
    }
    return 0;
}

void ag_fold_free(ag_fold *f)
{
    free(f->rank_at);
    free(f->slot_off);
    f->rank_at = NULL;
    f->slot_off = NULL;
}

/* Extra rank: send own block to its core partner, receive everything back. */
static void fold_extra(tc_sched *s, const tc_args *a, const ag_fold *f)
{
    int partner = a->rank - f->q;
    tc_sched_send(s, partner, ag_own(a));
    tc_sched_round(s);
    tc_sched_recv(s, partner, ag_rbuf(a, 0, a->size));
    tc_sched_round(s);
}

/* Core rank: put the own block (and the extra partner's) into its slot. */
static void fold_gather_in(tc_sched *s, const tc_args *a, const ag_fold *f, int my_pos)
{
    int64_t off = f->slot_off[my_pos];
    tc_sched_need_tmp(s, f->slot_off[f->q] * a->rcount);
    if (a->rank < f->extras)
        tc_sched_recv(s, a->rank + f->q, ag_tmp(a, off + 1, 1));
    tc_sched_copy(s, ag_own(a), ag_tmp(a, off, 1));
    tc_sched_round(s);
}

/* Core rank: copy all slots to the receive buffer, serve the extra partner. */
static void fold_scatter_out(tc_sched *s, const tc_args *a, const ag_fold *f)
{
    for (int j = 0; j < f->q; j++) {
        int u = f->rank_at[j];
        int64_t off = f->slot_off[j];
        tc_sched_copy(s, ag_tmp(a, off, 1), ag_rbuf(a, u, 1));
        if (u < f->extras)
            tc_sched_copy(s, ag_tmp(a, off + 1, 1), ag_rbuf(a, u + f->q, 1));
    }
    tc_sched_round(s);
    if (a->rank < f->extras) {
        tc_sched_send(s, a->rank + f->q, ag_rbuf(a, 0, a->size));
        tc_sched_round(s);
    }
}

int ag_fold_allgather(tc_sched *s, const tc_args *a, int bitrev_positions)
{
    ag_fold f;
    int rc = ag_fold_init(&f, a->size, bitrev_positions);
    if (rc) return rc;
    int r = a->rank;
    if (r >= f.q) {
        fold_extra(s, a, &f);
    } else {
        int pos = bitrev_positions ? tc_bitrev(r, f.bits) : r;
        tc_members core = tc_members_list(f.rank_at, f.q, pos);
        tc_bundles slots = tc_bundles_at(TC_BUF_TMP, 0, f.slot_off);
        slots.unit = a->rcount;
        fold_gather_in(s, a, &f, pos);
        tc_allgather_rd_over(s, &core, &slots, NULL);
        fold_scatter_out(s, a, &f);
    }
    ag_fold_free(&f);
    return 0;
}
