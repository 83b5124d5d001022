/* Reduce-scatter generators over blocks of any size (see rs_blocks.h). */
#include "blocks/rs_blocks.h"
#include "pattern/pattern.h"

#include <errno.h>
#include <stdlib.h>

/* The finished block of rank r, in acc, to RECV[0, its count): a copy
 * unless acc is there already; through scratch element stage when the two
 * overlap (in place, block r starting inside RECV's first count elements). */
static void place_result(tc_sched *s, tc_region acc, int64_t stage)
{
    tc_region to = tc_reg(TC_BUF_RECV, 0, acc.cnt);
    if (acc.cnt <= 0 || (acc.buf == TC_BUF_RECV && acc.off == 0)) return;
    if (acc.buf == TC_BUF_RECV && acc.off < acc.cnt) {
        tc_region via = tc_reg(TC_BUF_TMP, stage, acc.cnt);
        tc_sched_copy(s, acc, via);
        acc = via;
    }
    tc_sched_copy(s, acc, to);
}

void tc_rs_pairwise(tc_sched *s, const tc_args *a, const tc_rs_blocks *B)
{
    int p = a->size, r = a->rank;
    int64_t b = tc_rs_cnt(B, r), off = tc_rs_off(B, r);
    int overlap = a->in_place && off > 0 && off < b;
    s->tmp_like = TC_BUF_SEND;
    tc_region acc = tc_reg(TC_BUF_RECV, a->in_place ? off : 0, b);
    if (!a->in_place) tc_sched_copy(s, tc_rs_input(B, r), acc);
    tc_sched_need_tmp(s, (p > 2 || overlap ? 2 : 1) * b);
    for (int i = 1; i < p; i++) {
        int dst = tc_wrap(r + i, p), src = tc_wrap(r - i, p);
        tc_sched_send(s, dst, tc_rs_input(B, dst));
        tc_sched_recv(s, src, tc_reg(TC_BUF_TMP, (int64_t)((i - 1) & 1) * b, b));
        if (i > 1) tc_sched_reduce(s, tc_reg(TC_BUF_TMP, (int64_t)((i - 2) & 1) * b, b), acc);
        tc_sched_round(s);
    }
    if (p > 1) tc_sched_reduce(s, tc_reg(TC_BUF_TMP, (int64_t)((p - 2) % 2) * b, b), acc);
    place_result(s, acc, (int64_t)((p - 1) % 2) * b);
    tc_sched_round(s);
}

void tc_rs_ring(tc_sched *s, const tc_args *a, const tc_rs_blocks *B)
{
    int p = a->size, r = a->rank;
    int64_t slot = tc_rs_max(B);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, 2 * slot);
    if (p == 1) {
        place_result(s, tc_rs_input(B, 0), 0);
        tc_sched_round(s);
        return;
    }
    int right = tc_ring_right(r, p), left = tc_ring_left(r, p);
    for (int i = 0; i < p - 1; i++) {
        int out = tc_mod(r - i - 1, p), in = tc_mod(r - i - 2, p);
        tc_region got = tc_reg(TC_BUF_TMP, (int64_t)(i & 1) * slot, tc_rs_cnt(B, in));
        tc_region sent = i == 0 ? tc_rs_input(B, out)
                                : tc_reg(TC_BUF_TMP, (int64_t)((i - 1) & 1) * slot, tc_rs_cnt(B, out));
        tc_sched_send(s, right, sent);
        tc_sched_recv(s, left, got);
        tc_sched_round(s);
        tc_sched_reduce(s, tc_rs_input(B, in), got);   /* mine op what came */
        tc_sched_round(s);
    }
    /* the last step's block is r's own: its sum is in slot (p-2) mod 2 */
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, (int64_t)((p - 2) & 1) * slot, tc_rs_cnt(B, r)),
                  tc_reg(TC_BUF_RECV, 0, tc_rs_cnt(B, r)));
    tc_sched_round(s);
}

/* ---- recursive halving ---------------------------------------------------- */

typedef struct halving {
    const tc_rs_blocks *B;
    int p, q, rem, bits;
    int64_t n;        /* the vector's elements */
    int64_t *at;      /* [q+1] scratch offset of super-block position k */
} halving;

/* The first and one past the last rank new rank v stands for. */
static int first_of(const halving *h, int v) { return v < h->rem ? 2 * v : v + h->rem; }
static int last_of(const halving *h, int v) { return v < h->rem ? 2 * v + 2 : v + h->rem + 1; }

/* Super-block v: the vector's elements of v's ranks. */
static int64_t super_lo(const halving *h, int v) { return tc_rs_end(h->B, first_of(h, v)); }
static int64_t super_hi(const halving *h, int v) { return tc_rs_end(h->B, last_of(h, v)); }

static int halving_init(halving *h, const tc_args *a, const tc_rs_blocks *B)
{
    h->B = B;
    h->p = a->size;
    h->q = tc_pow2_floor(h->p);
    h->rem = h->p - h->q;
    h->bits = 0;
    while ((1 << h->bits) < h->q) h->bits++;
    h->n = tc_rs_end(B, h->p);
    h->at = malloc((size_t)(h->q + 1) * sizeof *h->at);
    if (!h->at) return -1;
    h->at[0] = 0;
    for (int k = 0; k < h->q; k++) {
        int v = tc_bitrev(k, h->bits);
        h->at[k + 1] = h->at[k] + super_hi(h, v) - super_lo(h, v);
    }
    return 0;
}

/* Positions [k, k + len) of scratch area `area` (0 or 1). */
static tc_region span_of(const halving *h, int area, int k, int len)
{
    return tc_reg(TC_BUF_TMP, area * h->n + h->at[k], h->at[k + len] - h->at[k]);
}

/* The input vector into scratch area 0 in position order (local copies). */
static void permute_in(tc_sched *s, const halving *h)
{
    for (int k = 0; k < h->q; k++) {
        int v = tc_bitrev(k, h->bits);
        tc_sched_copy(s, tc_reg(TC_BUF_SEND, super_lo(h, v), super_hi(h, v) - super_lo(h, v)),
                      span_of(h, 0, k, 1));
    }
}

/* An odd rank below 2 rem: its vector, in position order, to the even one
 * below; its block back at the end. */
static void dropped(tc_sched *s, const tc_args *a, const halving *h)
{
    int r = a->rank;
    for (int k = 0; k < h->q; k++) {
        int v = tc_bitrev(k, h->bits);
        tc_sched_send(s, r - 1, tc_reg(TC_BUF_SEND, super_lo(h, v), super_hi(h, v) - super_lo(h, v)));
    }
    tc_sched_round(s);
    tc_sched_recv(s, r - 1, tc_reg(TC_BUF_RECV, 0, tc_rs_cnt(h->B, r)));
    tc_sched_round(s);
}

/* The butterfly steps of new rank v, its partial in area acc; returns the
 * area holding its sum. */
static int halve(tc_sched *s, const halving *h, int v, int acc)
{
    int mine = tc_bitrev(v, h->bits);
    for (int k = 1, size = h->q / 2; k < h->q; k <<= 1, size /= 2) {
        int pv = v ^ k, peer = first_of(h, pv), theirs = tc_bitrev(pv, h->bits);
        int keep = mine & ~(size - 1), give = theirs & ~(size - 1);
        tc_sched_send(s, peer, span_of(h, acc, give, size));
        tc_sched_recv(s, peer, span_of(h, 1 - acc, keep, size));
        tc_sched_round(s);
        if (v < pv) {   /* mine op theirs, into what came */
            tc_sched_reduce(s, span_of(h, acc, keep, size), span_of(h, 1 - acc, keep, size));
            acc = 1 - acc;
        } else {        /* theirs op mine */
            tc_sched_reduce(s, span_of(h, 1 - acc, keep, size), span_of(h, acc, keep, size));
        }
        tc_sched_round(s);
    }
    return acc;
}

int tc_rs_halving(tc_sched *s, const tc_args *a, const tc_rs_blocks *B)
{
    halving h;
    int r = a->rank;
    s->tmp_like = TC_BUF_SEND;
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_rs_input(B, 0), tc_reg(TC_BUF_RECV, 0, tc_rs_cnt(B, 0)));
        tc_sched_round(s);
        return 0;
    }
    if (halving_init(&h, a, B) != 0) return ENOMEM;
    if (r < 2 * h.rem && r % 2) {
        dropped(s, a, &h);
        free(h.at);
        return 0;
    }
    int v = r < 2 * h.rem ? r / 2 : r - h.rem, acc = 0;
    tc_sched_need_tmp(s, 2 * h.n);
    permute_in(s, &h);
    if (r < 2 * h.rem) {   /* fold in: even op odd, into what came */
        for (int k = 0; k < h.q; k++) tc_sched_recv(s, r + 1, span_of(&h, 1, k, 1));
        tc_sched_round(s);
        tc_sched_reduce(s, span_of(&h, 0, 0, h.q), span_of(&h, 1, 0, h.q));
        acc = 1;
    }
    tc_sched_round(s);
    acc = halve(s, &h, v, acc);
    tc_region sum = span_of(&h, acc, tc_bitrev(v, h.bits), 1);
    int64_t mine = tc_rs_cnt(B, r);
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, sum.off, mine), tc_reg(TC_BUF_RECV, 0, mine));
    if (r < 2 * h.rem)   /* fold out: the odd rank's block */
        tc_sched_send(s, r + 1, tc_reg(TC_BUF_TMP, sum.off + mine, tc_rs_cnt(B, r + 1)));
    tc_sched_round(s);
    free(h.at);
    return 0;
}
