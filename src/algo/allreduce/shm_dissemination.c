/*
 * allreduce "shm_dissemination" (one node): the dissemination allreduce of
 * Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective Communication for
 * MPI" (2013), section 3.4, in ceil(log2 p) rounds, reformulated so that
 * every rank evaluates one canonical expression tree (copy-in:
 * shm_common.h).
 *
 * The paper's dissemination has rank i combine the partial of rank
 * i - 2^k in round k, so every rank groups the contributions differently
 * (and a non-commutative operation wraps around).  Here, instead, the
 * partial P_k(u) of rank u after k rounds is the reduction of the aligned
 * block of 2^k ranks that holds u, [u & ~(2^k - 1), + 2^k) cut at p: in
 * round k rank u reads the partial of the sibling block (the block whose
 * first rank is w = ((u >> k) XOR 1) << k; none when w >= p) from w's slot
 * and computes "lower block op upper block".  Both operands are
 * bitwise-identical on every rank of their block (induction), so every
 * rank evaluates the same balanced tree over the ranks in rank order and
 * ends with a bitwise-identical result, non-commutative operations too.
 *
 * Steps: each rank has two slots; its partials alternate between them
 *   (P_0 is the copied-in input).  A block's first rank raises the flags of
 *   the sibling block's ranks when its partial is ready; a reader raises the
 *   first rank's flag once it has combined (the first rank waits for these
 *   before it overwrites that slot two rounds later).  The last round writes
 *   the result straight into the receive buffer.
 * Cost (p ranks, n elements): n copy-in, ceil(log2 p) rounds of one flag,
 *   n copy and n gamma; the first ranks of blocks are read by up to p/2
 *   ranks in the last round.
 * Memory: node-shared 2 p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, section 3.4 (dissemination); the
 *   canonical grouping is this library's.
 */
#include "algo/allreduce/dissemination_blocks.h"
#include "algo/allreduce/shm_common.h"

#define NSLOTS 2

/* The slot holding P_k(u): the slots alternate with every partial computed. */
static int loc(int u, int k, int p) { return diss_combined(u, k, p) % 2; }

/* Rank u waits, at the end of the round that computes P_{k+1}, for what round
 * k+1 needs: the sibling's partial, and the acknowledgements of the readers of
 * its own P_k (before P_{k+2} overwrites that slot). */
static void waits(tc_sched *s, int u, int k, int p, int L)
{
    if (k >= 0 && k < L - 1 && u % (1 << k) == 0) {
        int w = u ^ (1 << k);
        for (int q = w; q < w + (1 << k) && q < p; q++) tc_sched_wait(s, q);
    }
    if (k + 1 < L && diss_sibling(u, k + 1) < p) tc_sched_wait(s, diss_sibling(u, k + 1));
}

/* Round k: P_{k+1}(u) from P_k(u) and the sibling's P_k. */
static void combine(tc_sched *s, const tc_args *a, int k, int L)
{
    int u = a->rank, p = a->size, w = diss_sibling(u, k), lu = loc(u, k, p);
    tc_region own = ar_slot_all(a, NSLOTS, u, lu);
    tc_region out = k == L - 1 ? tc_reg(TC_BUF_RECV, 0, a->scount) : ar_slot_all(a, NSLOTS, u, 1 - lu);
    if (w >= p) {   /* no sibling: the partial stays (the last round copies it out) */
        if (k == L - 1) tc_sched_copy(s, own, out);
        return;
    }
    tc_region other = ar_slot_all(a, NSLOTS, w, loc(w, k, p));
    if (u < w) {    /* own op other */
        tc_sched_copy(s, other, out);
        tc_sched_reduce(s, own, out);
    } else {        /* other op own */
        tc_sched_copy(s, own, out);
        tc_sched_reduce(s, other, out);
    }
    if (k < L - 1) tc_sched_signal(s, w);   /* read: w may reuse the slot */
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, u = a->rank, L = tc_log2_ceil(p);
    if (p == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    ar_shm_layout(s, a, NSLOTS);
    ar_copy_in(s, a, NSLOTS);
    diss_ready(s, u, -1, p, L);
    waits(s, u, -1, p, L);
    tc_sched_round(s);
    for (int k = 0; k < L; k++) {
        combine(s, a, k, L);
        diss_ready(s, u, k, p, L);
        waits(s, u, k, p, L);
        tc_sched_round(s);
    }
    return 0;
}

const tc_algo tc_allreduce_shm_dissemination = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_dissemination",
    .desc = "shared memory (copy-in), ceil(log2 p) rounds, each rank combining aligned rank blocks "
            "(one canonical tree: identical results on every rank)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = generate, .source = __FILE__,
};
