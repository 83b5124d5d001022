/*
 * Subset building blocks (see subset.h).
 *
 * ring: n-1 steps, bundle (me-i+1) to the right, (me-i) from the left.
 * rd: recursive doubling; for n not a power of two the n-q extra members
 *   (q = largest power of two <= n) fold onto members 0..n-q-1 first and get
 *   everything back last; a core member then holds two ranges of bundles,
 *   sent as two messages.
 * bruck: ceil(log n) steps without rotation: at distance d a member sends
 *   the bundles me .. me+c-1 (mod n) to me-d and receives me+d .. me+d+c-1
 *   from me+d, c = min(d, n-d); a wrapped range is two messages.
 * bcast: binomial tree over member indices rooted at member 0.
 */
#include "blocks/subset.h"
#include "pattern/pattern.h"

tc_region tc_bundles_range(const tc_bundles *b, int first, int count)
{
    return tc_reg(b->buf, b->base + b->off[first], b->off[first + count] - b->off[first]);
}

/* A range of bundles modulo n: one or two regions. */
static void send_mod(tc_sched *s, const tc_bundles *b, int peer, int first, int count)
{
    int head = count < b->n - first ? count : b->n - first;
    tc_sched_send(s, peer, tc_bundles_range(b, first, head));
    if (count > head) tc_sched_send(s, peer, tc_bundles_range(b, 0, count - head));
}

static void recv_mod(tc_sched *s, const tc_bundles *b, int peer, int first, int count)
{
    int head = count < b->n - first ? count : b->n - first;
    tc_sched_recv(s, peer, tc_bundles_range(b, first, head));
    if (count > head) tc_sched_recv(s, peer, tc_bundles_range(b, 0, count - head));
}

void tc_subset_allgather_ring(tc_sched *s, const tc_bundles *b, int me)
{
    int n = b->n;
    int right = b->ranks[tc_ring_right(me, n)], left = b->ranks[tc_ring_left(me, n)];
    for (int i = 1; i < n; i++) {
        tc_sched_send(s, right, tc_bundles_range(b, tc_mod(me - i + 1, n), 1));
        tc_sched_recv(s, left, tc_bundles_range(b, tc_mod(me - i, n), 1));
        tc_sched_round(s);
    }
}

void tc_subset_allgather_bruck(tc_sched *s, const tc_bundles *b, int me)
{
    int n = b->n;
    for (int d = 1; d < n; d *= 2) {
        int c = d < n - d ? d : n - d;
        send_mod(s, b, b->ranks[tc_mod(me - d, n)], me, c);
        recv_mod(s, b, b->ranks[tc_mod(me + d, n)], tc_mod(me + d, n), c);
        tc_sched_round(s);
    }
}

/* Core member u's held set after aligning to d: [g, g+d) and their extras. */
static void rd_core_ranges(const tc_bundles *b, int q, int g, int d,
                           int *f1, int *c1, int *f2, int *c2)
{
    *f1 = g;
    *c1 = d;
    *f2 = g + q;
    int end = g + d + q < b->n ? g + d + q : b->n;
    *c2 = end > *f2 ? end - *f2 : 0;
}

void tc_subset_allgather_rd(tc_sched *s, const tc_bundles *b, int me)
{
    int n = b->n, q = tc_pow2_floor(n), extras = n - q;
    if (me >= q) {                                  /* extra member */
        tc_sched_send(s, b->ranks[me - q], tc_bundles_range(b, me, 1));
        tc_sched_round(s);
        tc_sched_recv(s, b->ranks[me - q], tc_bundles_range(b, 0, n));
        tc_sched_round(s);
        return;
    }
    if (me < extras) {
        tc_sched_recv(s, b->ranks[me + q], tc_bundles_range(b, me + q, 1));
        tc_sched_round(s);
    }
    for (int d = 1; d < q; d *= 2) {
        int partner = me ^ d, f1, c1, f2, c2;
        rd_core_ranges(b, q, me & ~(d - 1), d, &f1, &c1, &f2, &c2);
        tc_sched_send(s, b->ranks[partner], tc_bundles_range(b, f1, c1));
        if (c2) tc_sched_send(s, b->ranks[partner], tc_bundles_range(b, f2, c2));
        rd_core_ranges(b, q, partner & ~(d - 1), d, &f1, &c1, &f2, &c2);
        tc_sched_recv(s, b->ranks[partner], tc_bundles_range(b, f1, c1));
        if (c2) tc_sched_recv(s, b->ranks[partner], tc_bundles_range(b, f2, c2));
        tc_sched_round(s);
    }
    if (me < extras) {
        tc_sched_send(s, b->ranks[me + q], tc_bundles_range(b, 0, n));
        tc_sched_round(s);
    }
}

void tc_subset_bcast(tc_sched *s, const int *ranks, int n, int me,
                     const tc_region *regs, int nregs)
{
    int kids[32];
    if (n < 2) return;
    if (me) {
        for (int i = 0; i < nregs; i++) tc_sched_recv(s, ranks[tc_binom_parent(me)], regs[i]);
        tc_sched_round(s);
    }
    int nk = tc_binom_children(me, n, kids, 32);
    for (int k = 0; k < nk; k++)
        for (int i = 0; i < nregs; i++) tc_sched_send(s, ranks[kids[k]], regs[i]);
    tc_sched_round(s);
}
