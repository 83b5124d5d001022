/*
 * allreduce "ring": ring reduce-scatter, then ring allgather.
 *
 * Steps: the n elements are p blocks (the first n mod p one element
 *   longer).  1. p-1 steps: at step i rank r sends block (r-i) mod p to its
 *   right neighbour, receives block (r-i-1) mod p from its left one into
 *   scratch and combines it into that block of its receive buffer (the
 *   partial from the left first); after them rank r holds block (r+1) mod p
 *   reduced over all ranks.  2. p-1 steps of a ring allgather of the blocks.
 *   Each result block is computed once and copied, so all ranks hold
 *   bitwise-identical results; the chains wrap around the ring, so the
 *   order is not the rank order.
 * Cost: 2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma.
 * Memory: one block (ceil(n/p)) of scratch.
 * Restrictions: commutative operations (declines the others).
 * Source: Patarasuk, Yuan, "Bandwidth Optimal All-reduce Algorithms for
 *   Clusters of Workstations" (2009); MPICH allreduce_intra_ring.
 */
#include "algo/allreduce/common.h"

typedef struct ringb { int p; int64_t per, extra; } ringb;

static tc_region block(const ringb *B, int buf, int i)
{
    i = tc_mod(i, B->p);
    int64_t off = (int64_t)i * B->per + (i < B->extra ? i : B->extra);
    return tc_reg(buf, off, B->per + (i < B->extra ? 1 : 0));
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, right = tc_ring_right(r, p), left = tc_ring_left(r, p);
    int64_t n = a->scount;
    ringb B = { p, n / p, n % p };
    int in = ar_input(a);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, p > 1 ? B.per + (B.extra ? 1 : 0) : 0);
    if (p == 1) {
        if (in != TC_BUF_RECV) tc_sched_copy(s, ar_all(in, n), ar_all(TC_BUF_RECV, n));
        tc_sched_round(s);
        return 0;
    }
    for (int i = 0; i < p - 1; i++) {
        tc_region got = block(&B, TC_BUF_TMP, r - i - 1);
        got.off = 0;
        /* step 0 sends the input itself and copies it to RECV meanwhile */
        tc_sched_send(s, right, block(&B, i == 0 ? in : TC_BUF_RECV, r - i));
        if (i == 0 && in != TC_BUF_RECV) tc_sched_copy(s, ar_all(in, n), ar_all(TC_BUF_RECV, n));
        tc_sched_recv(s, left, got);
        tc_sched_round(s);
        tc_sched_reduce(s, got, block(&B, TC_BUF_RECV, r - i - 1));
        tc_sched_round(s);
    }
    for (int i = 0; i < p - 1; i++) {
        tc_sched_send(s, right, block(&B, TC_BUF_RECV, r + 1 - i));
        tc_sched_recv(s, left, block(&B, TC_BUF_RECV, r - i));
        tc_sched_round(s);
    }
    return 0;
}

/* Shift form, when every block has the same size (p divides n): p-1 steps
 * of one block to r+1, each followed by a step reducing what came; then
 * p-1 steps of one block to r+1. */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    int p = a->size, one = 1, rc = 0;
    int64_t per = p > 0 ? a->scount / p : 0;
    if (p < 2 || per <= 0 || per * p != a->scount) return TC_SHIFT_NONE;
    tc_shift_round pass = { 1, &one, &per, 0, 0, 1, 0 }, red = { 0, NULL, NULL, 1, per, 1, 0 };
    for (int i = 0; i < p - 1 && rc == 0; i++) {
        rc = sink(ctx, &pass);
        if (rc == 0) rc = sink(ctx, &red);
    }
    pass.repeat = p - 1;
    return rc ? rc : sink(ctx, &pass);
}

const tc_algo tc_allreduce_ring = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "ring",
    .desc = "ring reduce-scatter + ring allgather (bandwidth-optimal, large vectors)",
    .req = TC_REQ_COMMUTATIVE, .generate = generate, .source = __FILE__, .shift = shift_form,
};
