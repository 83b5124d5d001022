/*
 * allgatherv "bruck": ceil(log2 p) steps for any p and any counts.
 *
 * Steps: scratch holds the blocks in rotated order, block (r + j) mod p at
 *   the j-th place, the places packed by the blocks' own counts (so the
 *   offsets are prefix sums over the rotated order, different at every
 *   rank).  Step k (distance d = 2^k) sends the first min(d, p-d) places to
 *   r-d and receives as many behind them from r+d: the sender's first n
 *   places are blocks r+d .. r+d+n-1, exactly the receiver's places d ..
 *   d+n-1, so both regions are contiguous and of equal size.  Finally
 *   blocks r .. p-1 and 0 .. r-1 move to the receive buffer: two
 *   contiguous copies (the receive buffer is packed in rank order).
 * Cost: ceil(log2 p) alpha + (N - n_r) beta (N the sum of the counts) +
 *   a local copy of N.
 * Memory: N elements of scratch; p+1 offsets while generating.
 * Restrictions: none (zero counts: the empty sends and receives are
 *   dropped on both sides).
 * Source: Bruck, Ho, Kipnis, Upfal, Weathersby 1997; MPICH's
 *   allgatherv for short messages.
 */
#include <errno.h>
#include <stdlib.h>

#include "algo/allgatherv/common.h"
#include "blocks/ag_regions.h"
#include "pattern/pattern.h"

static int64_t count_of(const tc_args *a, int b)
{
    return ag_block_off(a, b + 1) - ag_block_off(a, b);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (p == 1) {
        tc_sched_copy(s, ag_own(a), ag_rbuf(a, 0, 1));
        return 0;
    }
    int64_t *rot = malloc((size_t)(p + 1) * sizeof *rot);   /* place j starts at rot[j] */
    if (!rot) return ENOMEM;
    rot[0] = 0;
    for (int j = 0; j < p; j++) rot[j + 1] = rot[j] + count_of(a, (r + j) % p);
    tc_sched_need_tmp(s, rot[p]);
    tc_sched_copy(s, ag_own(a), tc_reg(TC_BUF_TMP, 0, rot[1]));
    for (int d = 1; d < p; d *= 2) {
        int n = d < p - d ? d : p - d;
        tc_sched_send(s, tc_mod(r - d, p), d == 1 ? ag_own(a) : tc_reg(TC_BUF_TMP, 0, rot[n]));
        tc_sched_recv(s, tc_mod(r + d, p), tc_reg(TC_BUF_TMP, rot[d], rot[d + n] - rot[d]));
        tc_sched_round(s);
    }
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, rot[p - r]), ag_rbuf(a, r, p - r));
    if (r > 0) tc_sched_copy(s, tc_reg(TC_BUF_TMP, rot[p - r], rot[p] - rot[p - r]), ag_rbuf(a, 0, r));
    free(rot);
    return 0;
}

const tc_algo tc_allgatherv_bruck = {
    .coll = TOPOCOLL_ALLGATHERV, .name = "bruck",
    .desc = "Bruck: ceil(log2 p) steps over scratch packed in rotated order, then two copies (any counts)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
