/*
 * allgather "bruck": ceil(log2 p) steps for any p.
 *
 * Steps: scratch holds blocks r, r+1, ... (mod p) from index 0.  Step k
 *   (distance d = 2^k) sends the first min(d, p-d) blocks to r-d and
 *   receives as many from r+d behind them.  Finally block (r+i) mod p moves
 *   from scratch[i] to its place: two contiguous copies.
 * Cost: ceil(log p) alpha + (p-1) n beta + a local copy of p n.
 * Memory: p n scratch.
 * Restrictions: none.
 * Source: Bruck et al. 1997; MPICH's allgather for short messages at
 *   non-power-of-two p.
 */
#include "algo/allgather/common.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (p == 1) {
        tc_sched_copy(s, ag_own(a), ag_rbuf(a, 0, 1));
        return 0;
    }
    tc_sched_need_tmp(s, (int64_t)p * a->rcount);
    tc_sched_copy(s, ag_own(a), ag_tmp(a, 0, 1));
    for (int d = 1; d < p; d *= 2) {
        int n = d < p - d ? d : p - d;
        tc_sched_send(s, tc_mod(r - d, p), d == 1 ? ag_own(a) : ag_tmp(a, 0, n));
        tc_sched_recv(s, tc_mod(r + d, p), ag_tmp(a, d, n));
        tc_sched_round(s);
    }
    tc_sched_copy(s, ag_tmp(a, 0, p - r), ag_rbuf(a, r, p - r));
    if (r > 0) tc_sched_copy(s, ag_tmp(a, p - r, r), ag_rbuf(a, 0, r));
    return 0;
}

const tc_algo tc_allgather_bruck = {
    .coll = TOPOCOLL_ALLGATHER, .name = "bruck",
    .desc = "Bruck: ceil(log p) steps for any p, rotated scratch then one reorder",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
