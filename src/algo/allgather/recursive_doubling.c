/*
 * allgather "recursive_doubling": log2(p) exchange steps with partners at
 * distance 1, 2, 4, ..., the data exchanged doubling every step (algorithm
 * 5 of Pappalardo, Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather
 * Optimization with P2P Implementations"; the small-message algorithm of
 * section 3.1 of Kandalla, Subramoni, Santhanaraman, Koop, Panda,
 * "Designing Multi-Leader-Based Allgather Algorithms for Multi-Core
 * Clusters" (2009)).
 *
 * Steps (p a power of two): step k exchanges with r XOR 2^k the 2^k blocks
 *   of r's aligned group, straight in the receive buffer.
 *   Any other p: fold (see fold.h): the p - q extra ranks hand their block to
 *   a core rank, the q core ranks run the power-of-two algorithm on 1- or
 *   2-block slots in scratch, copy out, and send the full result back.
 * Cost: log2(p) alpha + (p-1) n beta for a power of two; otherwise
 *   (log2(q) + 2) alpha + (p-1 + p + 1) n beta on the core ranks that serve
 *   an extra (the final full send dominates).
 * Memory: none for a power of two; otherwise (p rounded to slots) * n scratch
 *   on core ranks.
 * Restrictions: none (Pappalardo et al.'s version needs a power of two).
 * Source: Thakur, Rabenseifner, Gropp 2005; the fold as in Rabenseifner's
 *   reduction algorithms.
 */
#include "algo/allgather/common.h"
#include "blocks/fold.h"
#include "pattern/pattern.h"

static void pow2_in_place(tc_sched *s, const tc_args *a)
{
    int p = a->size, r = a->rank;
    tc_sched_copy(s, ag_own(a), ag_rbuf(a, r, 1));
    for (int d = 1; d < p; d *= 2) {
        int partner = r ^ d;
        if (d == 1) tc_sched_send(s, partner, ag_own(a));
        else tc_sched_send(s, partner, ag_rbuf(a, r & ~(d - 1), d));
        tc_sched_recv(s, partner, ag_rbuf(a, partner & ~(d - 1), d));
        tc_sched_round(s);
    }
}

static int folded(tc_sched *s, const tc_args *a)
{
    ag_fold f;
    int rc = ag_fold_init(&f, a->size, 0);
    if (rc) return rc;
    int r = a->rank;
    if (r >= f.q) {
        ag_fold_extra(s, a, &f);
    } else {
        ag_fold_gather_in(s, a, &f, r);
        for (int d = 1; d < f.q; d *= 2) {
            int partner = r ^ d;
            tc_sched_send(s, partner, ag_fold_slots(&f, a, r & ~(d - 1), d));
            tc_sched_recv(s, partner, ag_fold_slots(&f, a, partner & ~(d - 1), d));
            tc_sched_round(s);
        }
        ag_fold_scatter_out(s, a, &f);
    }
    ag_fold_free(&f);
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (tc_is_pow2(a->size)) {
        pow2_in_place(s, a);
        return 0;
    }
    return folded(s, a);
}

const tc_algo tc_allgather_recursive_doubling = {
    .coll = TOPOCOLL_ALLGATHER, .name = "recursive_doubling",
    .desc = "recursive doubling: log p steps, distance and data doubling (folded for any p)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
