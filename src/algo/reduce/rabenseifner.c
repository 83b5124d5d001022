/*
 * reduce "rabenseifner": Rabenseifner's reduce-scatter + gather as MPICH
 * runs it (MPIR_Reduce_intra_reduce_scatter_gather), a baseline of Table 1
 * of Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012).
 *
 * Steps: q = largest power of two <= p, rem = p - q; the n elements are q
 *   blocks (the first n mod q blocks one element longer).
 *   1. Fold (p not a power of two): among ranks < 2 rem, each odd rank sends
 *      its whole input to the even rank below it and drops out; the even
 *      rank reduces.  Survivors get new ranks 0..q-1 (even r: r/2, r >= 2 rem:
 *      r - rem).
 *   2. Reduce-scatter by recursive halving: at mask 1, 2, ..., q/2 a survivor
 *      exchanges half of its current block range with new rank XOR mask (the
 *      lower rank keeps the lower half) and reduces the half it keeps; new
 *      rank v ends with one block (number bitrev(v)).
 *   3. Binomial gather of the blocks to the root over the same hypercube, the
 *      masks backwards (q/2 first): of each pair, the one whose half does not
 *      hold the root sends its range and stops.  A root that dropped out in
 *      1 first receives new rank 0's block and stands in for it.
 *   Survivors work in two scratch areas of n (the area received into becomes
 *   the accumulator); the root gathers into its receive buffer.
 * Cost: 2 log2 q alpha + 2 (q-1)/q n beta + (q-1)/q n gamma, plus
 *   alpha + n beta + n gamma for the fold (and alpha + n/q beta when the
 *   root dropped out).
 * Memory: 2 n scratch.
 * Restrictions: commutative operations (the halving reduces in no rank
 *   order); others are declined.
 * Source: Rabenseifner 1997; Thakur, Rabenseifner, Gropp 2005; MPICH
 *   reduce_intra_reduce_scatter_gather.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

typedef struct rab {
    int q, rem;
    int64_t per, extra; /* block i has per elements, one more when i < extra */
} rab;

/* First element of block i (computed, not tabled: a table of q entries per
 * rank made the simulator's 2^20 ranks quadratic). */
static int64_t disp(const rab *R, int i)
{
    return (int64_t)i * R->per + (i < R->extra ? i : R->extra);
}

/* Where the data live: element e at buf[base + e]. */
typedef struct loc { int buf; int64_t base; } loc;

static int real_rank(const rab *R, int nr) { return nr < R->rem ? 2 * nr : nr + R->rem; }

/* Blocks held by new rank v after the halving steps of masks 1 .. m. */
static void held(const rab *R, int v, int m, int *lo, int *cnt)
{
    int l = 0, size = R->q;
    for (int mm = 1; mm <= m; mm <<= 1) {
        size /= 2;
        if (v & mm) l += size;
    }
    *lo = l;
    *cnt = size;
}

static tc_region blocks(const rab *R, loc at, int lo, int cnt)
{
    return tc_reg(at.buf, at.base + disp(R, lo), disp(R, lo + cnt) - disp(R, lo));
}

static tc_region held_region(const rab *R, loc at, int v, int m)
{
    int lo, cnt;
    held(R, v, m, &lo, &cnt);
    return blocks(R, at, lo, cnt);
}

/* Step 1; returns the new rank (-1: dropped out). */
static int fold(tc_sched *s, const tc_args *a, const rab *R, loc *acc)
{
    int r = a->rank;
    int64_t n = a->scount;
    if (r >= 2 * R->rem) return r - R->rem;
    if (r % 2) {
        tc_sched_send(s, r - 1, tc_reg(TC_BUF_SEND, 0, n));
        tc_sched_round(s);
        return -1;
    }
    tc_sched_recv(s, r + 1, tc_reg(TC_BUF_TMP, 0, n));
    tc_sched_round(s);
    tc_sched_reduce(s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_TMP, 0, n));
    tc_sched_round(s);
    acc->buf = TC_BUF_TMP;
    acc->base = 0;
    return r / 2;
}

/* Step 2. */
static void halving(tc_sched *s, const tc_args *a, const rab *R, int v, loc *acc)
{
    for (int mask = 1; mask < R->q; mask <<= 1) {
        int partner = v ^ mask, dst = real_rank(R, partner);
        loc other = { TC_BUF_TMP, acc->buf == TC_BUF_TMP && acc->base == 0 ? a->scount : 0 };
        tc_sched_send(s, dst, held_region(R, *acc, partner, mask));
        tc_sched_recv(s, dst, held_region(R, other, v, mask));
        tc_sched_round(s);
        tc_sched_reduce(s, held_region(R, *acc, v, mask), held_region(R, other, v, mask));
        tc_sched_round(s);
        *acc = other;
    }
}

/* Step 3: v's blocks are at acc; the root collects at its receive buffer. */
static void gather(tc_sched *s, const tc_args *a, const rab *R, int v, loc acc)
{
    int r = a->rank, root = a->root;
    int root_out = root < 2 * R->rem && root % 2;
    int vroot = root_out ? 0 : root < 2 * R->rem ? root / 2 : root - R->rem;
    loc rbuf = { TC_BUF_RECV, 0 };
    if (root_out) {
        if (r == root) {
            tc_sched_recv(s, 0, held_region(R, rbuf, 0, R->q / 2));
            tc_sched_round(s);
            v = 0;
            acc = rbuf;
        } else if (v == 0) {
            tc_sched_send(s, root, held_region(R, acc, 0, R->q / 2));
            tc_sched_round(s);
            return;
        }
    }
    if (v < 0) return;
    loc at = acc;
    if (r == root && acc.buf != TC_BUF_RECV) {
        tc_region own = held_region(R, acc, v, R->q / 2);
        if (own.buf != TC_BUF_SEND || !a->in_place) tc_sched_copy(s, own, held_region(R, rbuf, v, R->q / 2));
        at = rbuf;
    }
    for (int mask = R->q / 2, j = tc_log2_ceil(R->q) - 1; mask >= 1; mask >>= 1, j--) {
        int partner = v ^ mask, dst = real_rank(R, partner);
        if (partner == 0 && root_out) dst = root;
        if ((partner >> j) == (vroot >> j)) {
            tc_sched_send(s, dst, held_region(R, at, v, mask));
            tc_sched_round(s);
            return;
        }
        tc_sched_recv(s, dst, held_region(R, at, partner, mask));
        tc_sched_round(s);
    }
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size;
    int64_t n = a->scount;
    s->tmp_like = TC_BUF_SEND;
    rab R;
    R.q = tc_pow2_floor(p);
    R.rem = p - R.q;
    R.per = n / R.q;
    R.extra = n % R.q;
    tc_sched_need_tmp(s, p > 1 ? 2 * n : 0);
    loc acc = { TC_BUF_SEND, 0 };
    int v = fold(s, a, &R, &acc);
    if (v >= 0) halving(s, a, &R, v, &acc);
    gather(s, a, &R, v, acc);
    return 0;
}

/* Cost function: the fold (n, reduced), recursive halving (mask d: n/2d
 * sent and reduced), the binomial gather of the blocks to new rank 0 (mask
 * d = q/2 .. 1: new ranks [d, 2d) send n/2d to v - d). */
static int gather_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    int v = tc_cw_fold_new(p, r);
    *blocks = 1;
    return v >= d && v < 2 * d ? tc_cw_fold_old(p, v - d) : -1;
}

static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int q = tc_cw_fold_halving(c, t, n);
    for (int d = q / 2; d >= 1; d >>= 1) tc_cw_step(c, t, gather_pair, NULL, d, n / (2 * d));
    return 0;
}

const tc_algo tc_reduce_rabenseifner = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE, .name = "rabenseifner",
    .desc = "Rabenseifner (MPICH): recursive-halving reduce-scatter, then binomial gather to the root",
    .req = TC_REQ_COMMUTATIVE,
    .generate = generate, .source = __FILE__,
};
