/*
 * scan and exscan "binomial": the up and down sweeps of a binomial tree over
 * the ranks (the work-efficient prefix), for any p.
 *
 * Steps: x is the running partial (scan: the receive buffer; exscan:
 *   scratch).  Up sweep, d = 1, 2, ..., D/2 (D the largest power of two
 *   <= p): rank r with (r + 1) mod 2d = d sends x to r + d when r + d < p;
 *   rank r with (r + 1) mod 2d = 0 receives and computes x = received op x,
 *   which then covers ranks r - 2d + 1 .. r.  Rank D - 1 now holds the
 *   prefix 0 .. D - 1.  Down sweep, d = D/2, ..., 1: rank r with
 *   (r + 1) mod 2d = 0, which holds its whole prefix, sends x to r + d
 *   (< p), whose x covers r + 1 .. r + d: received op x is its prefix.
 *   exscan then shifts: rank r sends its prefix to r + 1, which keeps it;
 *   its last rank's own prefix is never needed, so nothing is sent to it in
 *   the sweeps.
 * Cost: at most 2 log2 D steps of alpha + n beta + n gamma on the critical path
 *   (exscan one more of alpha + n beta), but only about 2 p messages in all
 *   (recursive doubling: about p log2 p).
 * Memory: n scratch (exscan 2 n).
 * Restrictions: none (non-commutative operations in rank order).
 * Source: G. E. Blelloch, "Prefix sums and their applications" (1990) (up
 *   and down sweeps); the inclusive down sweep of R. P. Brent and H. T. Kung,
 *   "A regular layout for parallel adders" (1982).
 */
#include "algo/cost_walk.h"
#include "algo/scan/common.h"

/* One step: senders to r + d, receivers combine.  The first step's sends
 * read the input, which is copied into x in the same round. */
typedef struct bstate {
    tc_region in, x, got;
    int first;
    int last;       /* exscan: the last rank, whose own prefix nobody needs (-1: none) */
} bstate;

static void step(tc_sched *s, const tc_args *a, bstate *b, int send, int recv, int d)
{
    int r = a->rank;
    recv = recv && r != b->last;
    if (send && r + d < a->size && r + d != b->last) tc_sched_send(s, r + d, b->first ? b->in : b->x);
    if (recv) tc_sched_recv(s, r - d, b->got);
    if (b->first && !sc_same(b->in, b->x)) tc_sched_copy(s, b->in, b->x);
    b->first = 0;
    tc_sched_round(s);
    if (recv) tc_sched_reduce(s, b->got, b->x);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, ex = sc_exclusive(a), D = tc_cw_pow2_floor(p);
    bstate b = { sc_input(a), ex ? sc_tmp(a, 0) : sc_result(a), sc_tmp(a, ex ? 1 : 0), 1, ex ? p - 1 : -1 };
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, p > 1 ? (ex ? 2 : 1) * a->scount : 0);
    for (int d = 1; 2 * d <= p; d <<= 1)
        step(s, a, &b, (r + 1) % (2 * d) == d, (r + 1) % (2 * d) == 0, d);
    for (int d = D / 2; d >= 1; d >>= 1)
        step(s, a, &b, (r + 1) % (2 * d) == 0, (r + 1) % (2 * d) == d && r - d >= 0, d);
    if (b.first && !ex) step(s, a, &b, 0, 0, 1);   /* scan at p = 1: the copy alone */
    if (ex) sc_shift(s, a, b.x);
    return 0;
}

/* ctx: the rank nobody sends to in the sweeps (exscan's last; -1: none) */
static int up_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    if ((r + 1) % (2 * d) != d || r + d >= p || r + d == *(const int *)ctx) return -1;
    *blocks = 1;
    return r + d;
}

static int down_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    if ((r + 1) % (2 * d) != 0 || r + d >= p || r + d == *(const int *)ctx) return -1;
    *blocks = 1;
    return r + d;
}

static int shift_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    if (r + d >= p) return -1;
    *blocks = 1;
    return r + d;
}

/* Does some rank send in the step of distance d? */
static int any_pair(tc_cw_pair pair, const int *last, int p, int d)
{
    double blocks;
    for (int r = 0; r < p; r++)
        if (pair(last, r, p, d, &blocks) >= 0) return 1;
    return 0;
}

/* Cost function: the up sweep's and the down sweep's steps, each reduced
 * (exscan: none to the last rank); exscan's shift. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)a;
    int p = t->size, D = tc_cw_pow2_floor(p), last = al->coll == TOPOCOLL_EXSCAN ? p - 1 : -1;
    for (int d = 1; 2 * d <= p; d <<= 1) {
        if (!any_pair(up_pair, &last, p, d)) continue;
        tc_cw_step(c, t, up_pair, &last, d, n);
        c->reduced += n;
    }
    for (int d = D / 2; d >= 1; d >>= 1) {
        if (!any_pair(down_pair, &last, p, d)) continue;
        tc_cw_step(c, t, down_pair, &last, d, n);
        c->reduced += n;
    }
    if (al->coll == TOPOCOLL_EXSCAN) tc_cw_step(c, t, shift_pair, NULL, 1, n);
    return 0;
}

const tc_algo tc_scan_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_SCAN, .name = "binomial",
    .desc = "binomial up and down sweeps (work-efficient prefix), any p, rank order kept",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};

const tc_algo tc_exscan_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_EXSCAN, .name = "binomial",
    .desc = "binomial up and down sweeps (work-efficient prefix), then a shift to rank + 1",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
