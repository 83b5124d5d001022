/*
 * scan and exscan "recursive_doubling": Hillis and Steele's prefix over all
 * ranks (the steps are doubling.h's).
 *
 * Steps: for d = 1, 2, 4, ... < p rank r sends its running partial (the
 *   operation over ranks max(0, r - 2d + 1) .. r) to r + d, receives rank
 *   r - d's and combines "received op own"; exscan also keeps the exclusive
 *   partial (the received ones only) in its receive buffer.
 * Cost: ceil(log2 p) (alpha + n beta + n gamma) (exscan: up to 2 n gamma a
 *   step); every rank sends in every step it has a partner above.
 * Memory: n scratch (exscan 2 n).
 * Restrictions: none (non-commutative operations in rank order).
 * Source: W. D. Hillis and G. L. Steele, "Data parallel algorithms" (1986);
 *   the MPI scan of Thakur, Rabenseifner, Gropp, "Optimization of Collective
 *   Communication Operations in MPICH" (2005) is its butterfly form.
 */
#include "algo/cost_walk.h"
#include "algo/scan/doubling.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, ex = sc_exclusive(a);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, p > 1 ? (ex ? 2 : 1) * a->scount : 0);
    if (ex) tc_scan_doubling(s, NULL, p, a->rank, sc_input(a), sc_tmp(a, 0), sc_tmp(a, 1), sc_result(a), 1);
    else tc_scan_doubling(s, NULL, p, a->rank, sc_input(a), sc_result(a), sc_tmp(a, 0), sc_result(a), 0);
    return 0;
}

/* Step of distance d: r to r + d, without wrapping. */
static int up_shift(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    if (r + d >= p) return -1;
    *blocks = 1;
    return r + d;
}

/* Cost function: ceil(log2 p) steps to r + d, each reduced (exscan: the
 * exclusive partial and the running one, as far as the schedule does). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)a;
    for (int d = 1; d < t->size; d <<= 1) {
        tc_cw_step(c, t, up_shift, NULL, d, n);
        if (al->coll != TOPOCOLL_EXSCAN) c->reduced += n;
        else   /* the exclusive partial (a copy at d = 1), the running one while still sent */
            c->reduced += (d > 1 ? n : 0) + (3 * d < t->size ? n : 0);
    }
    return 0;
}

const tc_algo tc_scan_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_SCAN, .name = "recursive_doubling",
    .desc = "Hillis-Steele prefix: log2 p steps to rank + 2^k, rank order kept",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};

const tc_algo tc_exscan_recursive_doubling = {
    .cost = cost,
    .coll = TOPOCOLL_EXSCAN, .name = "recursive_doubling",
    .desc = "Hillis-Steele prefix: log2 p steps to rank + 2^k, the exclusive partial kept beside",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
