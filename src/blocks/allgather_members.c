/* Allgather generators over a member map (see allgather_members.h). */
#include "blocks/allgather_members.h"
#include "pattern/pattern.h"

static int64_t slot_off(const tc_bundles *b, int j)
{
    return b->base + (b->off ? b->off[j] : (int64_t)j) * b->unit;
}

tc_region tc_bundles_slots(const tc_bundles *b, int first, int count)
{
    int64_t lo = slot_off(b, first);
    return tc_reg(b->buf, lo, slot_off(b, first + count) - lo);
}

/* Bundles [first, first + count) mod n: push one message per contiguous
 * piece of slots (one, or two when the run wraps); the caller's own bundle
 * alone is sent from own when given (the first step: its slot is being
 * filled in the same round). */
static void run_op(tc_sched *s, int send, int peer, const tc_members *m, const tc_bundles *b,
                   const tc_region *own, int first, int count)
{
    int n = m->n, slot = tc_mod(first - b->rot, n);
    int head = count < n - slot ? count : n - slot;
    if (send && own && count == 1 && tc_mod(first, n) == m->me) {
        tc_sched_send(s, peer, *own);
        return;
    }
    tc_region r = tc_bundles_slots(b, slot, head);
    if (send) tc_sched_send(s, peer, r);
    else tc_sched_recv(s, peer, r);
    if (count > head) {
        r = tc_bundles_slots(b, 0, count - head);
        if (send) tc_sched_send(s, peer, r);
        else tc_sched_recv(s, peer, r);
    }
}

static void copy_own(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own)
{
    if (own) tc_sched_copy(s, *own, tc_bundles_slots(b, tc_mod(m->me - b->rot, m->n), 1));
}

void tc_allgather_ring_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own)
{
    int n = m->n, me = m->me;
    int right = tc_member_rank(m, tc_ring_right(me, n)), left = tc_member_rank(m, tc_ring_left(me, n));
    copy_own(s, m, b, own);
    for (int i = 1; i < n; i++) {
        run_op(s, 1, right, m, b, i == 1 ? own : NULL, me - i + 1, 1);
        run_op(s, 0, left, m, b, NULL, me - i, 1);
        tc_sched_round(s);
    }
    tc_sched_round(s);
}

void tc_allgather_bruck_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own)
{
    int n = m->n, me = m->me;
    copy_own(s, m, b, own);
    for (int d = 1; d < n; d *= 2) {
        int c = d < n - d ? d : n - d;
        run_op(s, 1, tc_member_rank(m, tc_mod(me - d, n)), m, b, d == 1 ? own : NULL, me, c);
        run_op(s, 0, tc_member_rank(m, tc_mod(me + d, n)), m, b, NULL, me + d, c);
        tc_sched_round(s);
    }
    tc_sched_round(s);
}

/* The bundles core member u holds before the step of distance d: its
 * aligned group [g, g+d) and their extras [g+q, min(g+d+q, n)). */
static void rd_held(tc_sched *s, int send, int peer, const tc_members *m, const tc_bundles *b,
                    const tc_region *own, int q, int u, int d)
{
    int g = u & ~(d - 1), end = g + d + q < m->n ? g + d + q : m->n;
    run_op(s, send, peer, m, b, own, g, d);
    if (end > g + q) run_op(s, send, peer, m, b, own, g + q, end - g - q);
}

void tc_allgather_rd_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own)
{
    int n = m->n, me = m->me, q = tc_pow2_floor(n), extras = n - q;
    if (me >= q) {                 /* extra member: sends own, gets everything */
        int core = tc_member_rank(m, me - q);
        run_op(s, 1, core, m, b, own, me, 1);
        tc_sched_round(s);
        run_op(s, 0, core, m, b, NULL, 0, n);
        tc_sched_round(s);
        return;
    }
    copy_own(s, m, b, own);
    if (me < extras) {
        run_op(s, 0, tc_member_rank(m, me + q), m, b, NULL, me + q, 1);
        tc_sched_round(s);
    }
    for (int d = 1; d < q; d *= 2) {
        int partner = me ^ d, peer = tc_member_rank(m, partner);
        rd_held(s, 1, peer, m, b, d == 1 ? own : NULL, q, me, d);
        rd_held(s, 0, peer, m, b, NULL, q, partner, d);
        tc_sched_round(s);
    }
    if (me < extras) {
        run_op(s, 1, tc_member_rank(m, me + q), m, b, NULL, 0, n);
        tc_sched_round(s);
    }
    tc_sched_round(s);
}
