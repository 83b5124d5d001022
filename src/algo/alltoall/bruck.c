/*
 * alltoall "bruck": ceil(log2 p) rounds for any p, for small blocks.
 *
 * Steps: (1) local rotation: scratch position i holds the block for rank
 *   (r+i) mod p.  (2) For d = 1, 2, 4, ... < p: the positions i with bit d
 *   set are packed into a contiguous part of scratch, sent to (r+d) mod p,
 *   and what arrives from (r-d) mod p is unpacked into the same positions
 *   (a block at position i travels the set bits of i, so it ends at rank
 *   r+i).  (3) Inverse rotation: position i now holds the block from rank
 *   (r-i) mod p, copied to its place in the receive buffer.
 * Cost: ceil(log p) alpha + about (p/2) n beta per round for n bytes per
 *   block, plus local copies of about p n per round.
 * Memory: 2p blocks of scratch (positions, packed send and receive parts).
 * Restrictions: none.  MPI_IN_PLACE needs nothing more: the rotation reads
 *   the whole input before anything is written.
 * Source: Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient Algorithms for
 *   All-to-All Communications in Multiport Message-Passing Systems" (1997);
 *   MPICH's alltoall for short messages.
 */
#include "algo/cost_walk.h"
#include "algo/alltoall/common.h"

/* Pack (dir 0: positions to the packed part at `at`) or unpack (dir 1) the
 * positions with bit d set; returns the number of blocks. */
static int64_t pack(tc_sched *s, const tc_args *a, int p, int d, int64_t at, int dir)
{
    int64_t n = 0;
    for (int i = d; i < p; i += 2 * d) {
        int len = i + d < p ? d : p - i;
        tc_region pos = a2a_blocks(a, TC_BUF_TMP, i, len);
        tc_region pk = a2a_blocks(a, TC_BUF_TMP, at + n, len);
        if (dir == 0) tc_sched_copy(s, pos, pk);
        else tc_sched_copy(s, pk, pos);
        n += len;
    }
    return n;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (a->in_place && p == 1) return 0;
    if (p == 1) {
        tc_sched_copy(s, a2a_send(a, 0, 1), a2a_recv(a, 0, 1));
        return 0;
    }
    int64_t half = p / 2 + 1, out = p, in = p + half;
    tc_sched_need_tmp(s, (int64_t)(p + 2 * half) * a->rcount);
    tc_sched_copy(s, a2a_send(a, r, p - r), a2a_blocks(a, TC_BUF_TMP, 0, p - r));
    if (r > 0) tc_sched_copy(s, a2a_send(a, 0, r), a2a_blocks(a, TC_BUF_TMP, p - r, r));
    for (int d = 1; d < p; d *= 2) {
        if (d > 1) pack(s, a, p, d / 2, in, 1);
        int64_t n = pack(s, a, p, d, out, 0);
        tc_sched_round(s);
        tc_sched_recv(s, tc_mod(r - d, p), a2a_blocks(a, TC_BUF_TMP, in, n));
        tc_sched_send(s, tc_mod(r + d, p), a2a_blocks(a, TC_BUF_TMP, out, n));
        tc_sched_round(s);
    }
    int last = 1;
    while (last * 2 < p) last *= 2;
    pack(s, a, p, last, in, 1);
    for (int i = 0; i < p; i++)
        tc_sched_copy(s, a2a_blocks(a, TC_BUF_TMP, i, 1), a2a_recv(a, tc_mod(r - i, p), 1));
    tc_sched_round(s);
    return 0;
}

/* Cost function: step d = 1, 2, 4, .. < p to rank+d of the blocks whose
 * position has bit d set; the two rotations copy p blocks each. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size;
    for (int d = 1; d < p; d <<= 1) {
        int k = 0;
        for (int i = 0; i < p; i++) k += (i & d) != 0;
        tc_cw_step(c, t, tc_cw_shift, NULL, d, n * k);
    }
    c->mem += 2.0 * p * n;
    return 0;
}

const tc_algo tc_alltoall_bruck = {
    .cost = cost,
    .coll = TOPOCOLL_ALLTOALL, .name = "bruck",
    .desc = "Bruck: ceil(log p) rounds for any p, rotation, packed exchanges, inverse rotation",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
