/* Owner-based reduction in stages (see twotier_reduce.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/twotier_reduce.h"

static tc_region sub(tc_region r, int64_t from, int64_t cnt)
{
    return tc_reg(r.buf, r.off + from, cnt);
}

static tc_region tmp(tt_red *R, int64_t cnt)
{
    tc_region r = tc_reg(TC_BUF_TMP, R->tmp_top, cnt);
    R->tmp_top += cnt;
    return r;
}

/* ---- ownership of segments among the units of a supernode ------------------ */

static int owners(const tt_red *R, int t, int sg)
{
    int n = tt_nunits(R->pl, t), S = R->pl->S;
    return S >= n ? 1 : (n - 1 - sg) / S + 1;
}

static int owner_unit(const tt_red *R, int t, int sg, int k)
{
    int n = tt_nunits(R->pl, t), S = R->pl->S;
    return R->pl->unit_first[t] + (S >= n ? sg % n : sg + k * S);
}

/* Which owner of segment sg in supernode t local unit i is (the k with
 * owner_unit(R, t, sg, k) = unit_first[t] + i), or -1: none. */
static int owner_index(const tt_red *R, int t, int sg, int i)
{
    int n = tt_nunits(R->pl, t), S = R->pl->S;
    if (S >= n) return i == sg % n ? 0 : -1;
    return i >= sg && (i - sg) % S == 0 ? (i - sg) / S : -1;
}

static void owner_range(const tt_red *R, int t, int sg, int k, int64_t *x, int64_t *y)
{
    int c = owners(R, t, sg);
    int64_t len = R->seg[sg + 1] - R->seg[sg];
    *x = R->seg[sg] + tt_split(len, c, k);
    *y = R->seg[sg] + tt_split(len, c, k + 1);
}

int tt_red_homes(const tt_red *R, int sg) { return owners(R, sg, sg); }
int tt_red_home_unit(const tt_red *R, int sg, int k) { return owner_unit(R, sg, sg, k); }
void tt_red_home_range(const tt_red *R, int sg, int k, int64_t *x, int64_t *y)
{ owner_range(R, sg, sg, k, x, y); }
int tt_red_owners(const tt_red *R, int t, int sg) { return owners(R, t, sg); }
int tt_red_owner_unit(const tt_red *R, int t, int sg, int k) { return owner_unit(R, t, sg, k); }
int tt_red_owner_index(const tt_red *R, int t, int sg, int i) { return owner_index(R, t, sg, i); }
void tt_red_owner_range(const tt_red *R, int t, int sg, int k, int64_t *x, int64_t *y)
{ owner_range(R, t, sg, k, x, y); }

/* The (segment, k) pairs local unit i of supernode t owns, in segment order:
 * returns how many, the first in *sg0, *k0, the step between segments. */
static int owned(const tt_red *R, int t, int i, int *sg0, int *k0, int *step)
{
    int n = tt_nunits(R->pl, t), S = R->pl->S;
    if (S >= n) {
        *sg0 = i;
        *k0 = 0;
        *step = n;
        return i < S ? (S - 1 - i) / n + 1 : 0;
    }
    *sg0 = i % S;
    *k0 = i / S;
    *step = 0;
    return 1;
}

int tt_red_owned(const tt_red *R, int t, int i, int *sg0, int *k0, int *step)
{ return owned(R, t, i, sg0, k0, step); }

static int64_t owned_total(const tt_red *R, int t, int i)
{
    int sg, k, step, m = owned(R, t, i, &sg, &k, &step);
    int64_t w = 0, x, y;
    for (int j = 0; j < m; j++, sg += step) {
        owner_range(R, t, sg, k, &x, &y);
        w += y - x;
    }
    return w;
}

/* ---- stage 1: clique reduction inside a unit; returns the unit's partial
 * (at the leader; cores get an empty region) ---------------------------------- */

static tc_region stage1(tc_sched *s, tt_red *R, int u)
{
    const tt_plan *pl = R->pl;
    int c = tt_ucount(pl, u), first = tt_upos(pl, u);
    if (c == 1) return R->in;
    int mi = tt_pos(pl, R->me) - first, leader = tt_leader(pl, u);
    int64_t x = tt_split(R->N, c, mi), len = tt_split(R->N, c, mi + 1) - x;
    tc_region stg = tmp(R, (int64_t)(c - 1) * len);
    for (int k = 0, q = 0; k < c; k++) {
        if (k == mi) continue;
        int64_t kx = tt_split(R->N, c, k);
        tc_sched_send(s, pl->rank_at[first + k], sub(R->in, kx, tt_split(R->N, c, k + 1) - kx));
        tc_sched_recv(s, pl->rank_at[first + k], sub(stg, (int64_t)q++ * len, len));
    }
    tc_sched_round(s);
    tc_region cur = sub(R->in, x, len);
    for (int q = 0; q < c - 1; q++) {
        tc_region next = sub(stg, (int64_t)q * len, len);
        tc_sched_reduce(s, cur, next);
        cur = next;
    }
    tc_sched_round(s);
    if (R->me != leader) {
        tc_sched_send(s, leader, cur);
        tc_sched_round(s);
        return tc_reg(TC_BUF_TMP, 0, 0);
    }
    tc_region acc = tmp(R, R->N);
    for (int k = 0; k < c; k++) {
        int64_t kx = tt_split(R->N, c, k), klen = tt_split(R->N, c, k + 1) - kx;
        if (k == mi) tc_sched_copy(s, cur, sub(acc, kx, klen));
        else tc_sched_recv(s, pl->rank_at[first + k], sub(acc, kx, klen));
    }
    tc_sched_round(s);
    return acc;
}

/* ---- stage 2: owner-based reduce-scatter among the units of supernode t;
 * fills loc[] (the reduced values of the ranges the unit owns) --------------- */

static void stage2(tc_sched *s, tt_red *R, int t, int i, tc_region P, tc_region *loc)
{
    const tt_plan *pl = R->pl;
    int n = tt_nunits(pl, t), sg0, k0, step, m = owned(R, t, i, &sg0, &k0, &step);
    int64_t W = owned_total(R, t, i), x, y;
    for (int j = 0, sg = sg0; j < m; j++, sg += step) {
        owner_range(R, t, sg, k0, &x, &y);
        loc[j] = sub(P, x, y - x);
    }
    if (n == 1) return;
    tc_region stg = tmp(R, (int64_t)(n - 1) * W);
    for (int j = 0, q = 0; j < n; j++) {
        if (j == i) continue;
        int peer = tt_leader(pl, pl->unit_first[t] + j), jsg, jk, jstep;
        int jm = owned(R, t, j, &jsg, &jk, &jstep);
        for (int b = 0; b < jm; b++, jsg += jstep) {
            owner_range(R, t, jsg, jk, &x, &y);
            tc_sched_send(s, peer, sub(P, x, y - x));
        }
        int64_t o = (int64_t)q++ * W;
        for (int b = 0; b < m; b++) {
            tc_sched_recv(s, peer, sub(stg, o, loc[b].cnt));
            o += loc[b].cnt;
        }
    }
    tc_sched_round(s);
    int64_t o = 0;
    for (int b = 0; b < m; b++) {
        for (int q = 0; q < n - 1; q++) {
            tc_region next = sub(stg, (int64_t)q * W + o, loc[b].cnt);
            tc_sched_reduce(s, loc[b], next);
            loc[b] = next;
        }
        o += loc[b].cnt;
    }
    tc_sched_round(s);
}

/* ---- stage 3: owners of foreign segments send them home; home owners
 * reduce ------------------------------------------------------------------------ */

static void send_home(tc_sched *s, const tt_red *R, int sg, int64_t x, int64_t y, tc_region at)
{
    int c = tt_red_homes(R, sg);
    for (int k = 0; k < c; k++) {
        int64_t hx, hy;
        tt_red_home_range(R, sg, k, &hx, &hy);
        int64_t lo = x > hx ? x : hx, hi = y < hy ? y : hy;
        if (lo < hi) tc_sched_send(s, tt_leader(R->pl, tt_red_home_unit(R, sg, k)), sub(at, lo - x, hi - lo));
    }
}

static void stage3(tc_sched *s, tt_red *R, int t, int i, const tc_region *loc)
{
    const tt_plan *pl = R->pl;
    int S = pl->S, sg0, k0, step, m = owned(R, t, i, &sg0, &k0, &step);
    int64_t x, y;
    tc_region stg = tc_reg(TC_BUF_TMP, 0, 0);
    if (R->home) stg = tmp(R, (int64_t)(S - 1) * (R->hy - R->hx));
    for (int j = 0, sg = sg0; j < m; j++, sg += step) {
        if (sg == t) continue;
        owner_range(R, t, sg, k0, &x, &y);
        send_home(s, R, sg, x, y, loc[j]);
    }
    if (R->home) {
        int64_t H = R->hy - R->hx;
        for (int t2 = 0, q = 0; t2 < S; t2++) {
            if (t2 == t) continue;
            for (int k = 0; k < owners(R, t2, t); k++) {
                owner_range(R, t2, t, k, &x, &y);
                int64_t lo = x > R->hx ? x : R->hx, hi = y < R->hy ? y : R->hy;
                if (lo < hi)
                    tc_sched_recv(s, tt_leader(pl, owner_unit(R, t2, t, k)),
                                  sub(stg, (int64_t)q * H + lo - R->hx, hi - lo));
            }
            q++;
        }
    }
    tc_sched_round(s);
    if (!R->home) return;
    for (int q = 0; q < S - 1; q++) {
        tc_region next = sub(stg, (int64_t)q * (R->hy - R->hx), R->hy - R->hx);
        tc_sched_reduce(s, R->hloc, next);
        R->hloc = next;
    }
    tc_sched_round(s);
}

void tt_red_run(tc_sched *s, tt_red *R)
{
    const tt_plan *pl = R->pl;
    int u = tt_unit_of(pl, R->me), t = pl->t->node_of[R->me], i = u - pl->unit_first[t];
    R->home = 0;
    R->hx = R->hy = 0;
    R->hloc = tc_reg(TC_BUF_TMP, 0, 0);
    tc_region P = stage1(s, R, u);
    if (R->me != tt_leader(pl, u)) return;
    int sg0, k0, step, m = owned(R, t, i, &sg0, &k0, &step);
    tc_region loc_small[4], *loc = m <= 4 ? loc_small : NULL;
    tc_region *heap = NULL;
    if (!loc) {
        heap = malloc((size_t)m * sizeof *heap);
        if (!heap) {
            s->err = ENOMEM;
            return;
        }
        loc = heap;
    }
    stage2(s, R, t, i, P, loc);
    for (int j = 0, sg = sg0; j < m; j++, sg += step)
        if (sg == t) {
            R->home = 1;
            owner_range(R, t, t, k0, &R->hx, &R->hy);
            R->hloc = loc[j];
        }
    if (pl->S > 1) stage3(s, R, t, i, loc);
    free(heap);
}

int tt_red_stages12(tc_sched *s, tt_red *R, tc_region **loc)
{
    const tt_plan *pl = R->pl;
    int u = tt_unit_of(pl, R->me), t = pl->t->node_of[R->me], i = u - pl->unit_first[t];
    *loc = NULL;
    tc_region P = stage1(s, R, u);
    if (R->me != tt_leader(pl, u)) return -1;
    int sg0, k0, step, m = owned(R, t, i, &sg0, &k0, &step);
    if (m > 0 && !(*loc = malloc((size_t)m * sizeof **loc))) {
        s->err = ENOMEM;
        return -1;
    }
    stage2(s, R, t, i, P, *loc);
    return m;
}

/* ---- set-up shared by the reduce and reduce-scatter schedules ------------- */

int tt_red_begin(tc_sched *s, tt_red *R, const tt_plan *pl, int me, int64_t N, int64_t b)
{
    int64_t *seg = malloc((size_t)(pl->S + 1) * sizeof *seg);
    memset(R, 0, sizeof *R);
    if (!seg) return ENOMEM;
    for (int i = 0; i <= pl->S; i++) seg[i] = b > 0 ? (int64_t)tt_snpos(pl, i) * b : tt_split(N, pl->S, i);
    R->pl = pl;
    R->me = me;
    R->N = N;
    R->seg = seg;
    R->in = tc_reg(TC_BUF_SEND, 0, N);
    if (b > 0 && !tt_identity(pl)) {
        R->in = tc_reg(TC_BUF_TMP, 0, N);
        R->tmp_top = N;
        tt_copy_runs(s, pl, 0, pl->p, 0, TC_BUF_TMP, 0, b, TC_BUF_SEND, b);
        tc_sched_round(s);
    }
    return 0;
}

void tt_red_end(tt_red *R)
{
    free((void *)R->seg);
    R->seg = NULL;
}
