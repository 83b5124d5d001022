/*
 * Allreduce among a subset of the ranks on one region (see subset.h):
 * the list versions of recursive_doubling.c, reduce_scatter_allgather.c and
 * ring.c, on a writable region (no read-only input to spare).
 */
#include "algo/allreduce/subset.h"
#include "algo/allreduce/common.h"

/* The data (buf 0) or the scratch (buf 1), elements [lo, lo + cnt) of the region. */
static tc_region at(const ar_sub *x, int which, int64_t lo, int64_t cnt)
{
    if (which == 0) return tc_reg(x->reg.buf, x->reg.off + lo, cnt);
    return tc_reg(TC_BUF_TMP, x->tmp_off + lo, cnt);
}

/* Fold in (positions < 2 rem): returns the new position (-1: dropped out);
 * *acc 0 (data) or 1 (scratch). */
static int fold_in(tc_sched *s, const ar_sub *x, const ar_fold *f, int *acc)
{
    int i = x->me;
    int64_t n = x->reg.cnt;
    *acc = 0;
    if (i >= 2 * f->rem) return i - f->rem;
    if (i % 2) {
        tc_sched_send(s, x->ranks[i - 1], at(x, 0, 0, n));
        tc_sched_round(s);
        return -1;
    }
    tc_sched_recv(s, x->ranks[i + 1], at(x, 1, 0, n));
    tc_sched_round(s);
    tc_sched_reduce(s, at(x, 0, 0, n), at(x, 1, 0, n));
    tc_sched_round(s);
    *acc = 1;
    return i / 2;
}

static void fold_out(tc_sched *s, const ar_sub *x, const ar_fold *f)
{
    int i = x->me;
    if (i >= 2 * f->rem) return;
    if (i % 2) tc_sched_recv(s, x->ranks[i - 1], at(x, 0, 0, x->reg.cnt));
    else tc_sched_send(s, x->ranks[i + 1], at(x, 0, 0, x->reg.cnt));
    tc_sched_round(s);
}

static int peer(const ar_sub *x, const ar_fold *f, int v) { return x->ranks[ar_real_rank(f, v)]; }

void ar_sub_rd(tc_sched *s, const ar_sub *x)
{
    int64_t n = x->reg.cnt;
    ar_fold f = ar_fold_of(x->n);
    int acc, v = fold_in(s, x, &f, &acc);
    if (v >= 0) {
        for (int mask = 1; mask < f.q; mask <<= 1) {
            int pv = v ^ mask, q = peer(x, &f, pv);
            tc_sched_send(s, q, at(x, acc, 0, n));
            tc_sched_recv(s, q, at(x, 1 - acc, 0, n));
            tc_sched_round(s);
            if (v < pv) {
                tc_sched_reduce(s, at(x, acc, 0, n), at(x, 1 - acc, 0, n));
                acc = 1 - acc;
            } else {
                tc_sched_reduce(s, at(x, 1 - acc, 0, n), at(x, acc, 0, n));
            }
            tc_sched_round(s);
        }
        if (acc) tc_sched_copy(s, at(x, 1, 0, n), at(x, 0, 0, n));
        tc_sched_round(s);
    }
    fold_out(s, x, &f);
}

/* Blocks of Rabenseifner's halving: first element and count of the blocks
 * new position v holds after the masks 1 .. m (q blocks of n). */
static void held(int q, int64_t n, int v, int m, int64_t *lo, int64_t *cnt)
{
    int l = 0, size = q;
    int64_t per = n / q, extra = n % q;
    for (int mm = 1; mm <= m; mm <<= 1) {
        size /= 2;
        if (v & mm) l += size;
    }
    int64_t a = (int64_t)l * per + (l < extra ? l : extra);
    int64_t b = (int64_t)(l + size) * per + (l + size < extra ? l + size : extra);
    *lo = a;
    *cnt = b - a;
}

void ar_sub_rsa_first_kept(int n, int me, int64_t cnt, int64_t *lo, int64_t *kept)
{
    ar_fold f = ar_fold_of(n);
    *lo = *kept = 0;
    if (n < 2) return;
    if (me < 2 * f.rem) {
        if (me % 2 == 0) *kept = cnt;   /* receives the neighbour's vector into scratch */
        return;
    }
    if (f.q > 1) held(f.q, cnt, me - f.rem, 1, lo, kept);
}

void ar_sub_rsa(tc_sched *s, const ar_sub *x)
{
    int64_t n = x->reg.cnt, lo, cnt, plo, pcnt;
    ar_fold f = ar_fold_of(x->n);
    int acc, v = fold_in(s, x, &f, &acc);
    if (v < 0) {
        fold_out(s, x, &f);
        return;
    }
    for (int mask = 1; mask < f.q; mask <<= 1) {
        int pv = v ^ mask, q = peer(x, &f, pv);
        held(f.q, n, v, mask, &lo, &cnt);
        held(f.q, n, pv, mask, &plo, &pcnt);
        tc_sched_send(s, q, at(x, acc, plo, pcnt));
        tc_sched_recv(s, q, at(x, 1 - acc, lo, cnt));
        tc_sched_round(s);
        if (v < pv) {
            tc_sched_reduce(s, at(x, acc, lo, cnt), at(x, 1 - acc, lo, cnt));
            acc = 1 - acc;
        } else {
            tc_sched_reduce(s, at(x, 1 - acc, lo, cnt), at(x, acc, lo, cnt));
        }
        tc_sched_round(s);
    }
    held(f.q, n, v, f.q / 2, &lo, &cnt);
    if (acc) tc_sched_copy(s, at(x, 1, lo, cnt), at(x, 0, lo, cnt));
    tc_sched_round(s);
    for (int mask = f.q / 2; mask >= 1; mask >>= 1) {
        int pv = v ^ mask, q = peer(x, &f, pv);
        held(f.q, n, v, mask, &lo, &cnt);
        held(f.q, n, pv, mask, &plo, &pcnt);
        tc_sched_send(s, q, at(x, 0, lo, cnt));
        tc_sched_recv(s, q, at(x, 0, plo, pcnt));
        tc_sched_round(s);
    }
    fold_out(s, x, &f);
}

/* Block i (mod n members) of the region, in the data (0) or the scratch's first block (1). */
static tc_region ring_block(const ar_sub *x, int which, int i)
{
    int p = x->n;
    i = ((i % p) + p) % p;
    int64_t per = x->reg.cnt / p, extra = x->reg.cnt % p;
    int64_t off = (int64_t)i * per + (i < extra ? i : extra), cnt = per + (i < extra ? 1 : 0);
    return which == 0 ? at(x, 0, off, cnt) : at(x, 1, 0, cnt);
}

/* How many messages carry a ring block of cnt elements: one when it is not
 * larger than a piece (or x->piece is 0: whole blocks). */
static int ring_pieces(const ar_sub *x, int64_t cnt)
{
    return x->piece > 0 && cnt > x->piece ? tc_nchunks(cnt, x->piece) : 1;
}

/* One ring step's messages: the block to the right and the one from the
 * left, whole or in pieces of x->piece elements (every piece posted in the
 * step's round, matched in order). */

static void ring_step(tc_sched *s, const ar_sub *x, int right, tc_region out, int left, tc_region in)
{
    for (int k = 0, n = ring_pieces(x, out.cnt); k < n; k++)
        tc_sched_send(s, right, n > 1 ? tc_reg_chunk(out, x->piece, k) : out);
    for (int k = 0, n = ring_pieces(x, in.cnt); k < n; k++)
        tc_sched_recv(s, left, n > 1 ? tc_reg_chunk(in, x->piece, k) : in);
    tc_sched_round(s);
}

void ar_sub_ring(tc_sched *s, const ar_sub *x)
{
    int p = x->n, r = x->me;
    if (p == 1) return;
    int right = x->ranks[(r + 1) % p], left = x->ranks[(r + p - 1) % p];
    for (int i = 0; i < p - 1; i++) {
        tc_region got = ring_block(x, 1, r - i - 1);
        ring_step(s, x, right, ring_block(x, 0, r - i), left, got);
        tc_sched_reduce(s, got, ring_block(x, 0, r - i - 1));
        tc_sched_round(s);
    }
    for (int i = 0; i < p - 1; i++)
        ring_step(s, x, right, ring_block(x, 0, r + 1 - i), left, ring_block(x, 0, r - i));
}
